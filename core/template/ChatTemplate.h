// Chat templates: turn a list of messages into the exact text transformers'
// apply_chat_template(..., tokenize=False) produces, with the byte spans the masks need.
#pragma once
#include "core/data/Conversation.h"
#include "core/data/TokenizedConversation.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

struct RenderOptions {
  bool addGenerationPrompt = false;
  // Template variables (bos_token, eos_token, ...). Values from tokenizer_config.json are the
  // defaults; --var overrides them.
  std::map<std::string, std::string> variables;
  std::optional<std::string> now; // "2024-07-26": the date strftime_now sees
  OrderedJson tools;              // null when none
  OrderedJson extra;              // more template variables (object) or null
  // Fill RenderResult::messages (costs one extra render per message; see JinjaChatTemplate.h).
  bool computeMessageSpans = true;
  // The processor's min_pixels / max_pixels for the image expansion after rendering (core/media,
  // --min-pixels / --max-pixels); 0: the processor's default. The template never reads them.
  int64_t minPixels = 0;
  int64_t maxPixels = 0;
};

struct RenderResult {
  std::string text;
  std::optional<std::vector<ByteSpan>> generationSpans; // {% generation %} blocks; nullopt: none
  std::vector<MessageSpan> messages;                    // one per input message, in order
};

class ChatTemplate {
public:
  virtual ~ChatTemplate() = default;
  // Throws Error (with template line/column where known) on raise_exception and limits.
  virtual RenderResult render(const std::vector<Message>& messages, const RenderOptions& options) const = 0;
  virtual bool hasGenerationMarkers() const = 0;
  virtual std::string name() const = 0;
  virtual std::string source() const = 0; // the Jinja text, or a description for native renderers
  // Variables that came with the template (bos_token, eos_token, pad_token, unk_token).
  virtual const std::map<std::string, std::string>& defaultVariables() const = 0;
};

// Resolves a --template SPEC: a built-in name, a .jinja file, a tokenizer_config.json, or a
// model folder. Empty spec: the template of tokenizerSpec's folder, ChatML for builtin:demo.
std::shared_ptr<ChatTemplate> loadChatTemplate(const std::string& spec, const std::string& tokenizerSpec = {});
// Names of the built-in templates.
std::vector<std::string> builtinTemplateNames();

} // namespace maskscope
