// A ChatTemplate backed by maskscope's Jinja interpreter: renders a Hugging Face chat template
// exactly as transformers' apply_chat_template(..., tokenize=False) does, with generation spans
// and per-message byte spans.
//
// How message spans are found. Fast path: during the one render, the interpreter records where
// each top-level for-loop iteration over an input message dict begins and ends in the output; block
// k runs from the start of message k's iteration to the start of message k+1's (the last one to the
// end of the text, or to the end of its iteration when a generation prompt follows). A leading
// message the loop never visits (a system message the template pulled out first) gets the text
// before the first visited one, after the BOS token. The result is used only when every message
// was visited in order, each non-empty content sits inside its block, and one prefix render
// (messages[0..n/2]) confirms the boundary in the middle.
// Otherwise (general path) the template is rendered again for each prefix messages[0..k]
// (without the generation prompt). When that render is a prefix of the full text, its length is
// the end of message k's block, and the previous boundary is its start (the first block starts
// after whatever the template emits for an empty conversation, or after the BOS token).
// When a prefix render is not a prefix of the full text (templates that treat the last message
// specially) or fails (templates that raise on partial conversations), the boundary falls back to
// the end of message k's content, located verbatim in order. The content span is the first
// verbatim occurrence of the content (or of its stripped form) inside the block.
#pragma once
#include "core/template/ChatTemplate.h"
#include "core/template/jinja/Template.h"

#include <nlohmann/json.hpp>
#include <optional>

namespace maskscope {

class JinjaChatTemplate final : public ChatTemplate {
public:
  // Throws Error (TemplateSyntaxError with line/column) when the source does not parse.
  JinjaChatTemplate(std::string name, const std::string& source, std::map<std::string, std::string> defaults);

  RenderResult render(const std::vector<Message>& messages, const RenderOptions& options) const override;
  // Same, from the JSON messages as a user wrote them (key order kept, any content type).
  RenderResult renderJson(const nlohmann::ordered_json& messages, const RenderOptions& options,
                          const nlohmann::ordered_json& tools = nullptr,
                          const nlohmann::ordered_json& extra = nullptr) const;

  bool hasGenerationMarkers() const override { return template_->hasGeneration(); }
  std::string name() const override { return name_; }
  std::string source() const override { return source_; }
  const std::map<std::string, std::string>& defaultVariables() const override { return defaults_; }
  const jinja::Template& compiled() const { return *template_; }

private:
  RenderResult renderValues(const std::vector<jinja::Value>& messages, const std::vector<std::string>& roles,
                            const std::vector<std::string>& contents, const RenderOptions& options,
                            const jinja::Value& tools, const jinja::Value& extra) const;
  jinja::RenderOutput renderOnce(const jinja::Variables& base, std::vector<jinja::Value> messages,
                                 bool addGenerationPrompt, const RenderOptions& options,
                                 const std::vector<const void*>* tracked = nullptr) const;
  // Message boundaries two ways: from the for-loop iterations recorded during the full render
  // (nothing when the template's shape does not fit), else from one render per prefix.
  struct SpanInputs;
  std::optional<std::vector<MessageSpan>> spansFromLoop(const SpanInputs& in,
                                                        const std::vector<std::pair<int64_t, int64_t>>& loop) const;
  // loop: the recorded iterations, used where a prefix render is not a prefix of the full text.
  std::vector<MessageSpan> spansFromPrefixes(const SpanInputs& in,
                                             const std::vector<std::pair<int64_t, int64_t>>& loop) const;

  std::string name_;
  std::string source_;
  std::map<std::string, std::string> defaults_;
  std::shared_ptr<const jinja::Template> template_;
};

} // namespace maskscope
