// Masked softmax arithmetic in the order the model does it: add the mask in float32, subtract the
// row maximum when needed, exponentiate, normalise.
#include "core/mask/SoftmaxArithmetic.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace maskscope {

double float32MaskValue() { return double(std::numeric_limits<float>::lowest()); }

namespace {
// The same arithmetic without any mask: e^x (shifted only when it would overflow), sum, weights.
void fillUnmasked(SoftmaxRow& r) {
  const size_t n = r.scores.size();
  r.unmaskedExps.assign(n, 0.0);
  r.unmasked.assign(n, 0.0);
  if (n == 0) return;
  double top = softmaxLogit(r, 0);
  for (size_t k = 1; k < n; ++k) top = std::max(top, softmaxLogit(r, k));
  r.unmaskedShift = top > 30 ? top : 0.0;
  for (size_t k = 0; k < n; ++k) r.unmaskedSum += r.unmaskedExps[k] = std::exp(softmaxLogit(r, k) - r.unmaskedShift);
  for (size_t k = 0; k < n; ++k) r.unmasked[k] = r.unmaskedExps[k] / r.unmaskedSum;
}
} // namespace

SoftmaxRow computeSoftmaxRow(const std::vector<double>& scores, const std::vector<CellState>& states, double softcap) {
  SoftmaxRow r;
  const size_t n = std::min(scores.size(), states.size());
  r.scores.assign(scores.begin(), scores.begin() + long(n));
  if (softcap > 0) {
    r.softcap = softcap;
    r.capped.resize(n);
    for (size_t k = 0; k < n; ++k) r.capped[k] = softcap * std::tanh(r.scores[k] / softcap);
  }
  r.states.assign(states.begin(), states.begin() + long(n));
  r.maskValue = float32MaskValue();
  r.masked.assign(n, 0.0);
  r.exps.assign(n, 0.0);
  r.weights.assign(n, 0.0);
  double maxMasked = -std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < n; ++k) {
    const bool open = r.states[k] == CellState::Allowed;
    r.allowed += open ? 1 : 0;
    // The model adds in float32: a score plus -3.4e38 rounds to -3.4e38 (the score is lost).
    r.masked[k] = open ? softmaxLogit(r, k) : double(float(softmaxLogit(r, k)) + float(r.maskValue));
    maxMasked = std::max(maxMasked, r.masked[k]);
  }
  r.fullyMasked = r.allowed == 0 && n > 0;
  // Show e^x itself for readable numbers; shift by the maximum only when e^x would overflow, and
  // always for a fully masked row (every entry is -3.4e38: e^0 = 1 each, a uniform row).
  r.shift = (maxMasked > 30 || r.fullyMasked) ? maxMasked : 0.0;
  for (size_t k = 0; k < n; ++k) {
    r.exps[k] = std::exp(r.masked[k] - r.shift); // blocked, not fully masked: e^(-3.4e38) underflows to 0
    r.sum += r.exps[k];
  }
  for (size_t k = 0; k < n; ++k) r.weights[k] = r.sum > 0 ? r.exps[k] / r.sum : 0.0;
  fillUnmasked(r);
  return r;
}

double attentionShare(const SoftmaxRow& row, const std::vector<uint8_t>& flags) {
  double share = 0;
  for (size_t k = 0; k < row.weights.size() && k < flags.size(); ++k)
    if (flags[k]) share += row.weights[k];
  return share;
}

PadAttention padAttention(const SoftmaxRow& row, const std::vector<uint8_t>& pads) {
  PadAttention out;
  out.fullyMasked = row.fullyMasked;
  for (size_t k = 0; k < pads.size() && k < row.states.size(); ++k)
    if (pads[k]) {
      ++out.pads;
      out.openPads += row.states[k] == CellState::Allowed ? 1 : 0;
    }
  out.share = attentionShare(row, pads);
  return out;
}

} // namespace maskscope
