// tokenizer.json normalizers (NFC/NFD/NFKC/NFKD, Prepend, Replace, Lowercase, Strip, Sequence),
// each rewriting a NormalizedText while keeping its alignment to the original bytes.
#pragma once
#include "core/tokenizer/hf/HfJson.h"
#include "core/tokenizer/hf/NormalizedText.h"

#include <memory>

namespace maskscope::hf {

class Normalizer {
public:
  virtual ~Normalizer() = default;
  virtual void normalize(NormalizedText& text) const = 0;
};

// Throws Error "unsupported normalizer: X" for types not implemented.
std::unique_ptr<Normalizer> parseNormalizer(const Json& v, const JsonPath& at);

} // namespace maskscope::hf
