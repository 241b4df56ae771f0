// tokenizer.json pre-tokenizers: ByteLevel, Split, Metaspace, Whitespace, WhitespaceSplit,
// Punctuation, Digits, Sequence. Each turns pieces of normalized text into smaller pieces (the
// words the model sees), keeping alignment.
#pragma once
#include "core/tokenizer/hf/HfJson.h"
#include "core/tokenizer/hf/NormalizedText.h"

#include <memory>
#include <vector>

namespace maskscope::hf {

class PreTokenizer {
public:
  virtual ~PreTokenizer() = default;
  // Replaces `pieces` by their splits; empty pieces are dropped.
  virtual void split(std::vector<NormalizedText>& pieces) const = 0;
  // True when the model sees the bytes of each piece through GPT-2's byte-to-unicode table.
  virtual bool byteLevel() const { return false; }
};

// Throws Error "unsupported pre-tokenizer: X" for types not implemented.
std::unique_ptr<PreTokenizer> parsePreTokenizer(const Json& v, const JsonPath& at);

} // namespace maskscope::hf
