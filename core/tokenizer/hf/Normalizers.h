// tokenizer.json normalizers (NFC/NFD/NFKC/NFKD, Prepend, Replace, Lowercase, Strip, Sequence),
// each rewriting a NormalizedText while keeping its alignment to the original bytes.
#pragma once
#include "core/tokenizer/hf/HfJson.h"
#include "core/tokenizer/hf/NormalizedText.h"

#include <memory>
#include <stdexcept>
#include <string>

namespace maskscope::hf {

// A normalizer may not amplify text without bound (a Sequence of Replace rules each doubling a
// character, a replacement thousands of times its pattern): normalized text is at most
// kNormalizerGrowth times its input plus kNormalizerSlack bytes, and never over kNormalizerCap.
// Real normalizers stay far below (Llama's Replace " " -> "\u2581" is 3x, NFKC at most 11x).
inline constexpr size_t kNormalizerGrowth = 16;
inline constexpr size_t kNormalizerSlack = 256;
inline constexpr size_t kNormalizerCap = size_t(1) << 30;

struct GrowthLimit {
  size_t inputBytes = 0;
  size_t maxBytes = 0;
  static GrowthLimit forInput(size_t inputBytes);
};

// Thrown when a normalizer would pass its GrowthLimit; the tokenizer adds its file and field()
// ("normalizer.normalizers[2]") as the location. what() names the type and the sizes.
class NormalizerGrowthError : public std::runtime_error {
public:
  NormalizerGrowthError(const std::string& message, std::string field)
      : std::runtime_error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

private:
  std::string field_;
};

class Normalizer {
public:
  virtual ~Normalizer() = default;
  // Rewrites text; throws NormalizerGrowthError rather than let it grow past limit.
  virtual void normalize(NormalizedText& text, const GrowthLimit& limit) const = 0;
  // The whole normalizer on one piece of input, limited by that piece's size.
  void run(NormalizedText& text) const { normalize(text, GrowthLimit::forInput(text.size())); }

  std::string field; // its place in tokenizer.json ("normalizer.normalizers[2]")
  std::string type;  // its type ("Replace")
  // Throws NormalizerGrowthError naming this normalizer: it would make `reached` bytes.
  [[noreturn]] void tooLarge(const GrowthLimit& limit, size_t reached) const;
};

// Throws Error "unsupported normalizer: X" for types not implemented.
std::unique_ptr<Normalizer> parseNormalizer(const Json& v, const JsonPath& at);

} // namespace maskscope::hf
