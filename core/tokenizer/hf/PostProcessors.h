// tokenizer.json post-processors: TemplateProcessing, ByteLevel (trim_offsets), RobertaProcessing,
// BertProcessing, Sequence. They add BOS/EOS-like tokens when asked and may trim offsets.
#pragma once
#include "core/tokenizer/Tokenizer.h"
#include "core/tokenizer/hf/HfJson.h"

#include <functional>
#include <memory>
#include <optional>

namespace maskscope::hf {

class PostProcessor {
public:
  virtual ~PostProcessor() = default;
  virtual void process(Encoding& enc, bool addSpecialTokens) const = 0;
  // True when process() reads Encoding::tokens (trim_offsets), so encode() must fill them.
  virtual bool needsTokenStrings() const { return false; }
};

// Resolves a special-token string to (id, token text) for templates; nullopt when unknown.
using SpecialLookup = std::function<std::optional<int32_t>(const std::string&)>;

std::unique_ptr<PostProcessor> parsePostProcessor(const Json& v, const JsonPath& at, const SpecialLookup& lookup);
// The template transformers builds for Llama/Gemma fast tokenizers from add_bos_token/add_eos_token.
std::unique_ptr<PostProcessor> makeBosEosTemplate(std::optional<std::pair<int32_t, std::string>> bos,
                                                  std::optional<std::pair<int32_t, std::string>> eos);

} // namespace maskscope::hf
