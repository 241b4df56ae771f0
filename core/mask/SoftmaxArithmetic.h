// The arithmetic of one masked softmax row, as a teacher writes it on the board: raw scores, the
// additive mask (0 for allowed keys, the dtype's most negative number for blocked ones, as
// transformers adds it), e^x, the sum and the weights. Pure; the softmax view shows these numbers.
#pragma once
#include "core/mask/AttentionGrid.h"

#include <cstdint>
#include <vector>

namespace maskscope {

// The additive mask value transformers uses for a blocked key: torch.finfo(float32).min
// = -3.4028234663852886e38, not -inf, because a fully masked row of -inf gives 0/0 = NaN.
double float32MaskValue();

// One query's row. Shapes: every vector has one entry per key [T].
struct SoftmaxRow {
  std::vector<double> scores;       // raw q.k / sqrt(d)
  std::vector<CellState> states;    // per key, why it is blocked (Allowed = not blocked)
  std::vector<double> masked;       // score + mask, rounded to float32 as the model adds it
  std::vector<double> exps;         // e^(masked - shift); exactly 0 for blocked keys unless the row is fully masked
  std::vector<double> weights;      // exps / sum
  std::vector<double> unmasked;     // what softmax would give without the mask
  std::vector<double> unmaskedExps; // e^(score - unmaskedShift) of every key, the mask ignored
  double unmaskedSum = 0;
  double unmaskedShift = 0; // as shift, for the row without the mask
  double maskValue = 0;     // the additive value of a blocked key (float32MaskValue())
  double shift = 0;         // subtracted before exp when e^x would overflow or the row is fully masked
  double sum = 0;
  int allowed = 0;
  bool fullyMasked = false; // every key blocked: -inf would give NaN; the finite mask value gives a uniform row
};
SoftmaxRow computeSoftmaxRow(const std::vector<double>& scores, const std::vector<CellState>& states);

// The share of the row's attention that goes to keys flagged in `flags` (e.g. padding positions a
// buggy all-ones mask leaves open); 0 when no flag is set. flags may be shorter than the row.
double attentionShare(const SoftmaxRow& row, const std::vector<uint8_t>& flags);

} // namespace maskscope
