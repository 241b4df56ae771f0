// How one batch row is laid out, as the linter reads it: which positions are padding and where
// each example (packed segment) lies. From the collator's metadata when present; for raw dumps
// from core/mask's paddingOfRow and segmentsOfRow.
#pragma once
#include "core/data/Batch.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

struct ExampleRange {
  int64_t begin = 0, end = 0; // real positions [begin, end) of one example in the row
  long sourceRow = -1;        // dataset row when known
};

// Where a row's example boundaries come from; Separators: naive packing, read from the tokens
// (core/mask/PackingSeparators.h); CuSeqLens: the dump's cu_seq_lens.
enum class SegmentSource { None, Collator, MaskSegmentIds, PositionResets, Separators, CuSeqLens };

struct RowLayout {
  std::vector<uint8_t> pad;           // [T]: 1 = padding
  std::vector<ExampleRange> examples; // in row order; empty when the row is all padding
  SegmentSource segmentSource = SegmentSource::None;
  int64_t firstReal = -1, endReal = -1; // first real position, one past the last real position
  int64_t padCount = 0;
  bool leftPadded() const { return firstReal > 0; }
  bool rightPadded() const { return endReal >= 0 && endReal < int64_t(pad.size()); }
  bool packed() const { return examples.size() >= 2; }
  std::string boundaries() const; // "positions 12, 40" where examples 2.. start
};

// Requires the batch's grids to have matching shapes (check shape-mismatch first). Padding is
// core/mask's paddingOfRow (the collator's metadata, else the batch's pad_token_id rule).
RowLayout rowLayout(const Batch& batch, int64_t row);

} // namespace maskscope
