// Derivation of the combined causal + padding (+ packing) mask from a batch.
#include "core/mask/AttentionGrid.h"
#include "core/util/Error.h"

namespace maskscope {

const char* cellStateName(CellState s) {
  switch (s) {
  case CellState::Allowed:
    return "allowed";
  case CellState::Future:
    return "future";
  case CellState::Padding:
    return "padding";
  case CellState::OtherExample:
    return "other example";
  case CellState::OutsideWindow:
    return "outside the window";
  }
  return "?";
}

int64_t AttentionGrid::allowedCount() const {
  int64_t n = 0;
  for (CellState c : cells) n += c == CellState::Allowed;
  return n;
}

std::vector<int64_t> segmentIdsForRow(const Batch& b, int64_t r, MaskSemantics semantics) {
  if (r < 0 || r >= b.batchSize()) throw Error("row " + std::to_string(r) + " is outside the batch");
  const int64_t T = b.length();
  std::vector<int64_t> seg(size_t(T), 1);
  const bool haveMask = b.attentionMask.sameShape(b.inputIds);
  for (int64_t t = 0; t < T; ++t) seg[size_t(t)] = haveMask ? b.attentionMask.at(r, t) : 1;
  if (semantics == MaskSemantics::Varlen) {
    // FlashAttention varlen: an example starts where the mask's segment id changes (axolotl's
    // get_unpad_data), after padding, or where the position id is 0 (transformers'
    // prepare_fa_kwargs_from_position_ids: cu_seqlens at position_ids == 0).
    const bool havePositions = b.positionIds.sameShape(b.inputIds);
    int64_t current = 0;
    std::vector<int64_t> raw = seg;
    for (int64_t t = 0; t < T; ++t) {
      if (raw[size_t(t)] == 0) {
        seg[size_t(t)] = 0;
        continue;
      }
      const bool starts = t == 0 || raw[size_t(t - 1)] == 0 || raw[size_t(t)] != raw[size_t(t - 1)] ||
                          (havePositions && b.positionIds.at(r, t) == 0);
      if (starts) ++current;
      seg[size_t(t)] = current;
    }
  }
  return seg;
}

CellState cellStateOf(const std::vector<int64_t>& seg, int64_t q, int64_t k, int64_t window) {
  if (k > q) return CellState::Future;
  const int64_t sk = seg[size_t(k)];
  if (sk == 0) return CellState::Padding;
  const int64_t sq = seg[size_t(q)];
  // A padding query keeps causal + key-padding only (transformers does not mask query rows).
  if (sq != 0 && sq != sk) return CellState::OtherExample;
  // Sliding layer: keys q - W + 1 .. q stay (W of them, the query included); a pad query too.
  if (window > 0 && q - k >= window) return CellState::OutsideWindow;
  return CellState::Allowed;
}

CellState cellStateOf(const std::vector<int64_t>& seg, const std::vector<uint8_t>& cells, int64_t q, int64_t k,
                      int64_t window) {
  if (cells.empty()) return cellStateOf(seg, q, k, window);
  if (!cells[size_t(q * int64_t(seg.size()) + k)]) {
    if (k > q) return CellState::Future;
    return seg[size_t(k)] == 0 ? CellState::Padding : CellState::OtherExample;
  }
  if (window > 0 && q - k >= window) return CellState::OutsideWindow;
  return CellState::Allowed;
}

AttentionGrid attentionGridForRow(const Batch& b, int64_t r, MaskSemantics semantics, int64_t window) {
  const std::vector<int64_t> seg = segmentIdsForRow(b, r, semantics);
  AttentionGrid g;
  g.size = b.length();
  g.cells.resize(size_t(g.size * g.size));
  for (int64_t q = 0; q < g.size; ++q)
    for (int64_t k = 0; k < g.size; ++k) g.cells[size_t(q * g.size + k)] = cellStateOf(seg, q, k, window);
  return g;
}

std::vector<CellState> attentionRow(const Batch& b, int64_t r, int64_t q, MaskSemantics semantics, int64_t window) {
  const std::vector<int64_t> seg = segmentIdsForRow(b, r, semantics);
  if (q < 0 || q >= b.length()) throw Error("query position " + std::to_string(q) + " is outside the row");
  std::vector<CellState> row(size_t(b.length()));
  for (int64_t k = 0; k < b.length(); ++k) row[size_t(k)] = cellStateOf(seg, q, k, window);
  return row;
}

} // namespace maskscope
