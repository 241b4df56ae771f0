// The attention a model actually applies for one batch row: a [T, T] grid of query x key cells,
// each allowed or blocked with the reason (future = causal, padding = key mask 0, other example =
// a different packed segment, outside the window = a sliding-window layer's key older than its
// window). Convention: row q may attend column k iff the cell is Allowed.
// Sliding window (as engine/ additiveMask and transformers' sliding_window_overlay): with window W > 0
// a query q sees key k only if q - k < W, i.e. exactly W keys including itself (positions by index,
// not by position_ids). The window is applied after the other reasons: a cell that is causal,
// padding or another example's keeps that reason.
#pragma once
#include "core/data/Batch.h"

#include <cstdint>
#include <vector>

namespace maskscope {

enum class CellState : uint8_t { Allowed = 0, Future = 1, Padding = 2, OtherExample = 3, OutsideWindow = 4 };
const char* cellStateName(CellState s);

// How the attention implementation reads the batch.
enum class MaskSemantics {
  Eager,  // eager/SDPA: causal AND attention_mask (0/1 key padding; segment ids 1,2,.. = same segment)
  Varlen, // FlashAttention varlen / padding-free: segments also split where position ids restart at 0
};

struct AttentionGrid {
  int64_t size = 0;
  std::vector<CellState> cells; // [size, size], row-major: cells[q * size + k]
  CellState at(int64_t q, int64_t k) const { return cells[size_t(q * size + k)]; }
  int64_t allowedCount() const;
};

// Segment id of every position of row r as the model sees it: 0 = padding, 1.. = example.
std::vector<int64_t> segmentIdsForRow(const Batch& batch, int64_t row, MaskSemantics semantics);
// window: 0 = a full-attention layer; W > 0 = a sliding layer that sees the W most recent keys.
AttentionGrid attentionGridForRow(const Batch& batch, int64_t row, MaskSemantics semantics = MaskSemantics::Eager,
                                  int64_t window = 0);
// One query row of the grid (cheap, for the softmax view): states of keys 0..T-1 for query q.
std::vector<CellState> attentionRow(const Batch& batch, int64_t row, int64_t query,
                                    MaskSemantics semantics = MaskSemantics::Eager, int64_t window = 0);
// The state of one cell from the row's mask segments (segmentIdsForRow) and the window.
CellState cellStateOf(const std::vector<int64_t>& segments, int64_t query, int64_t key, int64_t window = 0);
// The same where a 4-D mask decides: cells [T * T] (q * T + k, 1 = may attend; empty = use segments alone).
// A blocked cell reads future (k > q), padding (the key's segment is 0) or other example.
CellState cellStateOf(const std::vector<int64_t>& segments, const std::vector<uint8_t>& cells, int64_t query,
                      int64_t key, int64_t window = 0);
// Without the causal mask (BERT's, core/mask/MaskedLm.h): a key whose segment is 0 is padding, every
// other key is allowed, before or after the query.
inline CellState bidirectionalCellState(const std::vector<int64_t>& segments, int64_t key) {
  return segments[size_t(key)] == 0 ? CellState::Padding : CellState::Allowed;
}

} // namespace maskscope
