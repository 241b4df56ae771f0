// Text on its way through a tokenizer.json pipeline, with the alignment that maps each of its bytes
// back to the original input, so every token can report the UTF-8 byte range it came from.
//
// Alignment convention: a byte a normalizer left untouched maps to itself (so a token that holds
// part of a multi-byte character gets exactly the bytes it holds); bytes a normalizer produced
// (NFC of a grapheme cluster, a Replace, a Prepend) all map to the whole original range they came
// from. The Rust library maps every byte of a character to the whole character instead; the two
// agree except for tokens that split a multi-byte character.
#pragma once
#include "core/util/ByteSpan.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope::hf {

// One stretch of normalized bytes [norm, next run's norm) and where it came from.
struct AlignRun {
  int64_t norm = 0;     // first normalized byte of the run
  int64_t orig = 0;     // identity: original byte of `norm`; produced: start of the original range
  int64_t origEnd = 0;  // produced: end of the original range (identity: orig + run length)
  bool identity = true; // byte norm+k <-> original byte orig+k
};

class NormalizedText {
public:
  NormalizedText() = default;
  // Text that is its own original, starting at byte `base` of the input.
  static NormalizedText identity(std::string_view text, int64_t base);

  const std::string& text() const { return text_; }
  size_t size() const { return text_.size(); }
  bool empty() const { return text_.empty(); }

  // Original byte range of normalized bytes [b, e); an empty range maps to a point.
  ByteSpan original(size_t b, size_t e) const;
  // The normalized bytes [b, e) with their alignment.
  NormalizedText slice(size_t b, size_t e) const;

private:
  friend class NormalizedBuilder;
  size_t runIndex(size_t b) const;
  std::string text_;
  int64_t base_ = 0;           // identity form: byte k <-> original base_ + k
  std::vector<AlignRun> runs_; // non-empty: explicit alignment, sorted, first run at norm 0
};

// Builds a NormalizedText piece by piece (how normalizers and pre-tokenizers rewrite text).
class NormalizedBuilder {
public:
  // Copies src's bytes [b, e) keeping their alignment.
  void copy(const NormalizedText& src, size_t b, size_t e);
  // Appends produced bytes that all map to `from`.
  void produce(std::string_view bytes, ByteSpan from);
  size_t size() const { return out_.text_.size(); }
  NormalizedText finish();

private:
  void addRun(AlignRun run);
  NormalizedText out_;
};

} // namespace maskscope::hf
