// One row under two collators (compare mode), compared grid by grid with every count defined:
// positions whose input id, label, attention bit or position id differ, and attention cells whose
// state differs. Rows of different lengths (padding to the batch's longest vs to max_length, left vs
// right padding) are aligned explicitly at their first real token: a position one row has and the
// other lacks is counted apart ("only in A/B"), never as a difference.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/CellClass.h"

#include <cstdint>
#include <vector>

namespace maskscope {

// What a position's difference is made of (bits of RowComparison's per-position flags).
// DiffNoCounterpart marks a position the other row lacks (not a difference: nothing to compare with).
// DiffPadId: the input ids differ at a position both rows mask (attention bit 0 on both sides: a pad
// filled with another id, `pad_token=eos`); no query reads it and no label grades it, so it is its own
// category, outside DiffAny (a real position whose id differs is DiffId).
enum PositionDifference : uint8_t {
  DiffId = 1,
  DiffLabel = 2,
  DiffAttention = 4,
  DiffPositionId = 8,
  DiffAny = 15,
  DiffNoCounterpart = 16,
  DiffPadId = 32,
};

struct RowComparison {
  int64_t lengthA = 0, lengthB = 0;
  int64_t firstRealA = 0, firstRealB = 0; // the first non-pad position of each row (0 when all pads)
  int64_t shift = 0;                      // B's position = A's position + shift
  int64_t common = 0;                     // aligned pairs (positions both rows have)
  int64_t onlyA = 0, onlyB = 0;           // positions without a counterpart in the other row
  // Aligned pairs that differ in that grid (labels: as the loss scores them, gradedAt's label else -100,
  // so position 0's never-scored label is no difference; attention: the bit, mask != 0; position ids:
  // only when both rows have them, else positionIdsCompared is false and the count is 0).
  int64_t ids = 0, labels = 0, attention = 0, positionIds = 0;
  int64_t positions = 0; // aligned pairs that differ in any of the four
  int64_t padIds = 0;    // aligned pairs both rows mask whose (pad) ids differ (DiffPadId), not in the above
  bool positionIdsCompared = false;
  std::vector<uint8_t> flagsA, flagsB; // [T] per position: PositionDifference bits
  // Position t of A aligned with B's t + shift (-1 when B lacks it); and the reverse.
  int64_t inB(int64_t t) const;
  int64_t inA(int64_t t) const;
};

// Throws nothing: rows out of range compare as empty.
RowComparison compareRows(const Batch& a, int64_t rowA, const Batch& b, int64_t rowB);

// Attention cells: over the aligned lower triangle (query q, key k <= q, both aligned), the cells
// whose state (RowAnatomy::state: the mask the model applies) differs. O(common^2) time, O(T) memory.
struct CellComparison {
  int64_t compared = 0; // aligned cells (common * (common + 1) / 2)
  int64_t differ = 0;
};
CellComparison compareCells(const RowAnatomy& a, const RowAnatomy& b, int64_t shift);

} // namespace maskscope
