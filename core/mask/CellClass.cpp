// Cell classes: the mask's verdict (CellState) refined by what the row really holds.
#include "core/mask/CellClass.h"
#include "core/mask/EffectiveAttention.h"
#include "core/mask/PackedSegments.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/RowFacts.h"
#include "core/util/Error.h"

namespace maskscope {

const char* cellClassName(CellClass c) {
  switch (c) {
  case CellClass::Allowed:
    return "allowed";
  case CellClass::Future:
    return "future";
  case CellClass::Padding:
    return "padding";
  case CellClass::OtherExample:
    return "other example";
  case CellClass::OutsideWindow:
    return "outside the window";
  case CellClass::AllowedPad:
    return "allowed pad";
  case CellClass::AllowedOtherExample:
    return "allowed other example";
  }
  return "?";
}

CellState RowAnatomy::state(int64_t q, int64_t k) const {
  if (bidirectional) return bidirectionalCellState(maskSegments, k);
  return cellStateOf(maskSegments, maskCells, q, k, window);
}

CellClass RowAnatomy::classify(int64_t q, int64_t k) const {
  const CellState s = state(q, k);
  if (s != CellState::Allowed) return CellClass(uint8_t(s));
  if (!padding.empty() && padding[size_t(k)]) return CellClass::AllowedPad;
  if (example.empty()) return CellClass::Allowed;
  const int64_t eq = example[size_t(q)], ek = example[size_t(k)];
  if (eq != 0 && ek != 0 && eq != ek) return CellClass::AllowedOtherExample;
  return CellClass::Allowed;
}

std::vector<int64_t> RowAnatomy::exampleStarts() const {
  std::vector<int64_t> out;
  int64_t last = 0;
  for (size_t t = 0; t < example.size(); ++t) {
    if (example[t] == 0) continue;
    if (last != 0 && example[t] != last) out.push_back(int64_t(t));
    last = example[t];
  }
  return out;
}

RowAnatomy rowAnatomy(const Batch& b, int64_t r, MaskSemantics semantics, int64_t window) {
  RowAnatomy a;
  a.window = window;
  a.maskSegments = segmentIdsForRow(b, r, semantics); // checks r
  const size_t T = a.maskSegments.size();
  a.padding = paddingOfRow(b, r);
  a.special.assign(T, 0);
  a.predicts.assign(T, 0);
  for (size_t t = 0; t + 1 < T; ++t) a.predicts[t] = gradedAt(b, r, int64_t(t) + 1) ? 1 : 0;
  const bool haveMeta = size_t(r) < b.meta.size() && b.meta[size_t(r)].size() == T;
  if (haveMeta)
    for (size_t t = 0; t < T; ++t) {
      const PositionKind k = b.meta[size_t(r)][t].kind;
      a.special[t] = k == PositionKind::Template || k == PositionKind::Separator || b.meta[size_t(r)][t].special;
    }
  // The collator's own segments win (a row it did not pack holds one example, whatever its tokens
  // look like); a dump reveals them by segment ids, position-id resets or separators.
  std::vector<Segment> segments;
  if (size_t(r) < b.segments.size()) segments = b.segments[size_t(r)];
  const bool collated = b.segments.size() == size_t(b.batchSize()) && !b.meta.empty() && !b.rolesRecovered;
  if (segments.empty() && !collated) segments = segmentsOfRow(b, r);
  a.examplesKnown = segments.size() > 1;
  a.example.assign(T, segments.empty() ? 1 : 0);
  for (size_t i = 0; i < segments.size(); ++i)
    for (int64_t t = std::max<int64_t>(0, segments[i].begin); t < segments[i].end && t < int64_t(T); ++t)
      a.example[size_t(t)] = int64_t(i) + 1;
  for (size_t t = 0; t < T; ++t)
    if (a.padding[t]) a.example[t] = 0;
  return a;
}

RowAnatomy rowAnatomy(const Batch& b, int64_t r, const EffectiveMask& mask, int64_t window) {
  RowAnatomy a = rowAnatomy(b, r, MaskSemantics::Eager, window);
  if (size_t(r) >= mask.segments.size() || mask.segments[size_t(r)].size() != a.maskSegments.size())
    throw Error("the effective mask does not match the batch");
  a.maskSegments = mask.segments[size_t(r)];
  if (!mask.cells.empty()) a.maskCells = mask.cells[size_t(r)];
  a.bidirectional = mask.bidirectional;
  return a;
}

} // namespace maskscope
