// What each attention cell means to a reader, beyond what the model applies (CellState): an allowed
// cell whose key is padding, or whose key belongs to another packed example, is the bug made
// visible. Padding comes from the one rule of PaddingDetection (collator meta, else the mask/pad-id
// rule); examples from the collator's segments, else segment ids / position-id resets.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/AttentionGrid.h"

#include <cstdint>
#include <vector>

namespace maskscope {

// The blocked classes share CellState's numbers (CellClass(uint8_t(state)) is the class of a blocked state).
enum class CellClass : uint8_t {
  Allowed = 0,             // the query sees a real key of its own example
  Future = 1,              // blocked: causal
  Padding = 2,             // blocked: the key is padding
  OtherExample = 3,        // blocked: the key belongs to another packed example
  OutsideWindow = 4,       // blocked: a sliding-window layer, the key is older than the window
  AllowedPad = 5,          // allowed, but the key is padding (e.g. an all-ones mask)
  AllowedOtherExample = 6, // allowed, but the key belongs to another example (packing that leaks)
};
constexpr int kCellClassCount = 7;
const char* cellClassName(CellClass c);

// Per-position facts of one row that the cell classes need. All vectors are [T].
struct RowAnatomy {
  std::vector<int64_t> maskSegments; // segmentIdsForRow: what the model applies (0 = key padding)
  std::vector<uint8_t> maskCells;    // [T * T] when a 4-D mask decides (EffectiveMask::cells); else empty
  std::vector<uint8_t> padding;      // 1 = padding (paddingOfRow); empty = no pads known
  std::vector<int64_t> example;      // 0 = none (padding), 1.. = the packed example; empty = one example
  std::vector<uint8_t> special;      // 1 = template/separator token (collator meta only); may be empty
  std::vector<uint8_t> predicts;     // 1 = the logits at t enter the loss (the label at t + 1 is graded,
                                     //     gradedAt); empty = none known
  bool examplesKnown = false;        // more than one example was revealed (segments, ids or resets)
  int64_t window = 0;                // sliding-window layer: keys with q - k >= window are blocked; 0 = full
  bool bidirectional = false;        // no causal mask (EffectiveMask::bidirectional, the BERT aside)
  int64_t size() const { return int64_t(maskSegments.size()); }
  CellState state(int64_t q, int64_t k) const;
  CellClass classify(int64_t q, int64_t k) const;
  bool padQuery(int64_t q) const { return !padding.empty() && padding[size_t(q)] != 0; }
  bool queryGraded(int64_t q) const { return !predicts.empty() && predicts[size_t(q)] != 0; }
  // A pad query whose output nothing reads: the grid greys its row. A pad query whose output the
  // loss grades (labels copied onto the pads, e.g. labels=all) is the bug and is never greyed.
  bool unreadPadQuery(int64_t q) const { return padQuery(q) && !queryGraded(q); }
  bool gradedPadQuery(int64_t q) const { return padQuery(q) && queryGraded(q); }
  // First position of every example after the first (where a boundary is drawn).
  std::vector<int64_t> exampleStarts() const;
};

RowAnatomy rowAnatomy(const Batch& batch, int64_t row, MaskSemantics semantics = MaskSemantics::Eager,
                      int64_t window = 0);
// The same with the mask an attention implementation applies (core/mask/EffectiveAttention.h).
struct EffectiveMask;
RowAnatomy rowAnatomy(const Batch& batch, int64_t row, const EffectiveMask& mask, int64_t window = 0);

} // namespace maskscope
