// BERT's masked language modelling on one row. Upstream: huggingface/transformers
// src/transformers/data/data_collator.py, DataCollatorForLanguageModeling.torch_mask_tokens (read at
// commit 002786aa3512b54b23f20a978ad8b88bdc33d9a2; later releases name its two shares mask_replace_prob
// = 0.8 and random_replace_prob = 0.1, the same rule): special tokens get probability 0, the rest a
// Bernoulli(mlm_probability); labels -100 where not chosen; of the chosen, Bernoulli(0.8) become the
// mask token, Bernoulli(0.5) of the others a random id in [0, len(tokenizer)), the rest stay.
// Where this differs, on purpose: upstream's count varies with its coin flips (a 6-token row often gets
// none); here exactly round(p * candidates) positions are drawn (a seeded partial Fisher-Yates), so the
// count on screen is the stated share of the row, and the same seed gives the same chips anywhere.
#include "core/mask/MaskedLm.h"
#include "core/mask/PaddingDetection.h"
#include "core/util/Error.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_map>

namespace maskscope {

const char* mlmChoiceName(MlmChoice c) {
  switch (c) {
  case MlmChoice::None:
    return "none";
  case MlmChoice::Mask:
    return "mask";
  case MlmChoice::Random:
    return "random";
  case MlmChoice::Kept:
    return "kept";
  }
  return "?";
}

namespace {

// mt19937_64's output is fixed by the standard; the distributions of <random> are not, so the
// uniform draws are made here.
double uniform01(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }
int64_t uniformBelow(std::mt19937_64& rng, int64_t n) { return n <= 1 ? 0 : int64_t(rng() % uint64_t(n)); }

bool specialAt(const Batch& b, int64_t r, int64_t t, const MaskedLmOptions& o) {
  const int64_t id = b.inputIds.at(r, t);
  if (size_t(r) < b.meta.size() && size_t(t) < b.meta[size_t(r)].size() && b.meta[size_t(r)][size_t(t)].special)
    return true;
  if ((b.padTokenId && id == *b.padTokenId) || (b.eosTokenId && id == *b.eosTokenId) ||
      (b.bosTokenId && id == *b.bosTokenId))
    return true;
  return std::find(o.specialIds.begin(), o.specialIds.end(), id) != o.specialIds.end();
}

// (real query, real key) pairs the row's own causal mask allows: under the attention implementation the
// batch implies (eager when that one cannot run it), as the grid draws it.
int64_t causalPairsOf(const Batch& b, int64_t r, const std::vector<uint8_t>& pad) {
  EffectiveMask m;
  try {
    m = effectiveAttention(b, impliedAttnImplementation(b).implementation);
  } catch (const Error&) {
    m = effectiveAttention(b, AttnImplementation::Eager);
  }
  const int64_t T = b.length();
  int64_t pairs = 0;
  if (!m.cells.empty()) {
    for (int64_t q = 0; q < T; ++q)
      for (int64_t k = 0; k <= q && !pad[size_t(q)]; ++k)
        pairs += !pad[size_t(k)] && m.state(r, q, k) == CellState::Allowed;
    return pairs;
  }
  // Segments only: a real query sees the real keys of its own segment up to itself (O(T)).
  const std::vector<int64_t>& seg = m.segments.at(size_t(r));
  std::unordered_map<int64_t, int64_t> realSoFar;
  for (int64_t t = 0; t < T; ++t) {
    if (seg[size_t(t)] == 0 || pad[size_t(t)]) continue;
    pairs += ++realSoFar[seg[size_t(t)]];
  }
  return pairs;
}

} // namespace

MaskedLmRow maskedLmRow(const Batch& b, int64_t r, const MaskedLmOptions& o) {
  if (r < 0 || r >= b.batchSize()) throw Error("row " + std::to_string(r) + " is outside the batch");
  if (!(o.probability > 0.0 && o.probability <= 1.0))
    throw Error("the masking probability must be in (0, 1], not " + std::to_string(o.probability));
  const int64_t T = b.length();
  const std::vector<uint8_t> pad = paddingOfRow(b, r);
  MaskedLmRow m;
  m.positions = T;
  m.choice.assign(size_t(T), MlmChoice::None);
  m.labels.assign(size_t(T), kIgnoreIndex);
  m.inputIds.resize(size_t(T));
  std::vector<int64_t> candidates;
  int64_t maxId = 0;
  for (int64_t t = 0; t < T; ++t) {
    m.inputIds[size_t(t)] = b.inputIds.at(r, t);
    maxId = std::max(maxId, b.inputIds.at(r, t));
    if (pad[size_t(t)]) continue;
    ++m.real;
    if (specialAt(b, r, t, o))
      ++m.special;
    else
      candidates.push_back(t);
  }
  m.candidates = int64_t(candidates.size());
  m.masked = m.candidates ? std::max<int64_t>(1, std::llround(o.probability * double(m.candidates))) : 0;
  m.masked = std::min(m.masked, m.candidates);
  // The seed and the row: another row of the same batch gets other chips.
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ULL + uint64_t(r));
  for (int64_t i = 0; i < m.masked; ++i) // partial Fisher-Yates: the first `masked` are the draw
    std::swap(candidates[size_t(i)], candidates[size_t(i + uniformBelow(rng, m.candidates - i))]);
  m.maskedAt.assign(candidates.begin(), candidates.begin() + m.masked);
  std::sort(m.maskedAt.begin(), m.maskedAt.end());
  const int64_t vocab = o.vocabSize > 0 ? o.vocabSize : maxId + 1;
  for (int64_t t : m.maskedAt) { // in position order, so the draws do not depend on the shuffle
    m.labels[size_t(t)] = b.inputIds.at(r, t);
    if (uniform01(rng) < 0.8) {
      m.choice[size_t(t)] = MlmChoice::Mask;
      ++m.byMask;
      if (o.maskTokenId) m.inputIds[size_t(t)] = *o.maskTokenId;
    } else if (uniform01(rng) < 0.5) {
      m.choice[size_t(t)] = MlmChoice::Random;
      ++m.byRandom;
      m.inputIds[size_t(t)] = uniformBelow(rng, vocab);
    } else {
      m.choice[size_t(t)] = MlmChoice::Kept;
      ++m.kept;
    }
  }
  m.causalPairs = causalPairsOf(b, r, pad);
  m.bidirectionalPairs = m.real * m.real;
  return m;
}

EffectiveMask bidirectionalMask(const Batch& b) {
  EffectiveMask m;
  m.bidirectional = true;
  m.rule = "bidirectional (BERT): every real token sees every real token, before and after it; padding "
           "stays hidden";
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    const std::vector<uint8_t> pad = paddingOfRow(b, r);
    std::vector<int64_t> seg(pad.size());
    for (size_t t = 0; t < pad.size(); ++t) seg[t] = pad[t] ? 0 : 1;
    m.segments.push_back(std::move(seg));
  }
  return m;
}

} // namespace maskscope
