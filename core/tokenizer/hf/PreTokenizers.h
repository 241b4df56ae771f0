// tokenizer.json pre-tokenizers: ByteLevel, Split, Metaspace, Whitespace, WhitespaceSplit,
// Punctuation, Digits, Sequence. Each turns pieces of normalized text into smaller pieces (the
// words the model sees), keeping alignment.
#pragma once
#include "core/tokenizer/hf/HfJson.h"
#include "core/tokenizer/hf/NormalizedText.h"

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace maskscope::hf {

class PreTokenizer {
public:
  virtual ~PreTokenizer() = default;
  // Replaces `pieces` by their splits; empty pieces are dropped.
  virtual void split(std::vector<NormalizedText>& pieces) const = 0;
  // True when the model sees the bytes of each piece through GPT-2's byte-to-unicode table.
  virtual bool byteLevel() const { return false; }

  // Fast path for pre-tokenizers that only cut text (no Metaspace, no ByteLevel prefix space):
  // reports each resulting piece of text[b, e) as a byte range of text, in order, without
  // building NormalizedTexts. Same pieces as split().
  using RangeSink = std::function<void(size_t, size_t)>;
  virtual bool canStream() const { return false; }
  virtual void stream(std::string_view text, size_t b, size_t e, const RangeSink& sink) const {
    (void)text;
    sink(b, e);
  }
};

// Throws Error "unsupported pre-tokenizer: X" for types not implemented.
std::unique_ptr<PreTokenizer> parsePreTokenizer(const Json& v, const JsonPath& at);

} // namespace maskscope::hf
