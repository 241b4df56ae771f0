// The arithmetic of one masked softmax row, as a teacher writes it on the board: raw scores, the
// soft-capped scores when the model caps them (Gemma 2: c = cap * tanh(x / cap), before the mask), the
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
  std::vector<double> capped;       // cap * tanh(score / cap) when softcap > 0, else empty; the mask is added to these
  double softcap = 0;               // the attention-logit soft-cap; 0 = none
  std::vector<CellState> states;    // per key, why it is blocked (Allowed = not blocked)
  std::vector<double> masked;       // (capped) score + mask, rounded to float32 as the model adds it
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
// softcap > 0: the scores are soft-capped first, as transformers' Gemma 2 eager attention does.
SoftmaxRow computeSoftmaxRow(const std::vector<double>& scores, const std::vector<CellState>& states,
                             double softcap = 0);
// Then the row's logit of key k: the capped score when capping, else the score.
inline double softmaxLogit(const SoftmaxRow& r, size_t k) { return r.capped.empty() ? r.scores[k] : r.capped[k]; }

// The share of the row's attention that goes to keys flagged in `flags` (e.g. padding positions a
// buggy all-ones mask leaves open); 0 when no flag is set. flags may be shorter than the row.
double attentionShare(const SoftmaxRow& row, const std::vector<uint8_t>& flags);

// What a query gives to padding keys, decided once for every sentence that says it (the softmax
// view's headline and footer): the pad keys, those the mask leaves open, and the weight on them. A
// fully masked query (every key blocked) gets uniform weights over every key through the finite mask
// value, so its pads take their count's share even though none is open.
struct PadAttention {
  int pads = 0;     // pad keys in the row
  int openPads = 0; // pad keys the mask leaves open
  double share = 0; // the weight on pad keys (attentionShare)
  bool fullyMasked = false;
};
PadAttention padAttention(const SoftmaxRow& row, const std::vector<uint8_t>& pads);

} // namespace maskscope
