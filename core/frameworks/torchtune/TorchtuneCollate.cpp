// torchtune's padded_collate_sft, padded_collate_packed (SDPA mask) and PackedDataset, following
// _collate.py / attention_utils.py / _packed.py at bd2a0fc line by line.
#include "core/frameworks/torchtune/TorchtuneCollate.h"

#include "core/util/Error.h"

#include <algorithm>
#include <numeric>

namespace maskscope::torchtune {

namespace {

// pad_sequence(batch_first=True) of one column, right-padded to the longest row, then widened to width.
IntGrid padColumn(const std::vector<Sample>& batch, bool labels, int64_t width, int64_t fill) {
  IntGrid g(int64_t(batch.size()), width, fill);
  for (size_t r = 0; r < batch.size(); ++r) {
    const std::vector<int64_t>& v = labels ? batch[r].labels : batch[r].tokens;
    for (size_t t = 0; t < v.size(); ++t) g.at(int64_t(r), int64_t(t)) = v[t];
  }
  return g;
}

} // namespace

SftBatch paddedCollateSft(const std::vector<Sample>& batch, const SftOptions& o) {
  if (batch.empty()) throw Error("no rows to collate");
  size_t tokensLen = 0, labelsLen = 0;
  for (const Sample& s : batch) {
    tokensLen = std::max(tokensLen, s.tokens.size());
    labelsLen = std::max(labelsLen, s.labels.size());
  }
  // "Hack to pad correctly": both padded to the longer of the two; then the multiple-of padding is
  // computed from each tensor's length *before* that equalisation, as the source does.
  const int64_t common = int64_t(std::max(tokensLen, labelsLen));
  int64_t tokensWidth = common, labelsWidth = common;
  if (o.padToMultipleOf > 1) {
    tokensWidth += o.padToMultipleOf - int64_t(tokensLen) % o.padToMultipleOf;
    labelsWidth += o.padToMultipleOf - int64_t(labelsLen) % o.padToMultipleOf;
  }
  SftBatch out;
  out.tokens = padColumn(batch, false, tokensWidth, o.paddingIdx);
  out.labels = padColumn(batch, true, labelsWidth, o.ignoreIdx);
  if (o.cpDegree > 1) { // torch.arange(num_tokens).repeat(batch_size, 1)
    IntGrid pos(out.tokens.rows, out.tokens.cols);
    for (int64_t r = 0; r < pos.rows; ++r)
      for (int64_t t = 0; t < pos.cols; ++t) pos.at(r, t) = t;
    out.inputPos = std::move(pos);
  }
  return out;
}

bool PackedBatch::mask(int64_t b, int64_t q, int64_t k) const {
  // torch.block_diag of tril(ones(n, n)) per sequence length: causal inside each block.
  int64_t start = 0;
  for (int64_t n : seqLens[size_t(b)]) {
    if (q < start + n) return k >= start && k <= q;
    start += n;
  }
  return false;
}

PackedBatch paddedCollatePacked(const std::vector<Sample>& batch) {
  if (batch.empty()) throw Error("no rows to collate");
  const size_t T = batch.front().tokens.size();
  PackedBatch out;
  out.tokens = IntGrid(int64_t(batch.size()), int64_t(T));
  out.labels = out.tokens;
  out.inputPos = out.tokens;
  for (size_t r = 0; r < batch.size(); ++r) {
    const Sample& s = batch[r];
    const std::string row = "row " + std::to_string(r);
    if (s.tokens.size() != T || s.labels.size() != T || s.inputPos.size() != T)
      throw Error(row + ": tokens, labels and input_pos must all have the first row's length " + std::to_string(T) +
                  " (torch.stack)");
    const int64_t sum = std::accumulate(s.seqLens.begin(), s.seqLens.end(), int64_t(0));
    if (sum != int64_t(T))
      throw Error(row + ": seq_lens sum to " + std::to_string(sum) + ", not the row's " + std::to_string(T) +
                      " tokens (PackedDataset pads them to max_seq_len)",
                  {.field = "seq_lens"});
    for (size_t t = 0; t < T; ++t) {
      out.tokens.at(int64_t(r), int64_t(t)) = s.tokens[t];
      out.labels.at(int64_t(r), int64_t(t)) = s.labels[t];
      out.inputPos.at(int64_t(r), int64_t(t)) = s.inputPos[t];
    }
    out.seqLens.push_back(s.seqLens);
  }
  return out;
}

namespace {

struct Packer {
  const PackOptions& o;
  std::vector<Sample> packs;
  size_t previousBoundary = 0;

  bool shouldStop() const { return o.maxPacks && int64_t(packs.size()) == *o.maxPacks; }

  // _pad_pack: tokens with padding_idx, labels with -100, the padding as one more seq_len, input_pos
  // continuing from the last value and clamped to max_seq_len - 1.
  void add(Sample pack) {
    const int64_t n = int64_t(pack.tokens.size());
    const int64_t padding = o.maxSeqLen - n;
    const int64_t last = pack.inputPos.empty() ? -1 : pack.inputPos.back();
    for (int64_t i = 0; i < padding; ++i) {
      pack.tokens.push_back(o.paddingIdx);
      pack.labels.push_back(kIgnoreIndex);
      pack.inputPos.push_back(std::clamp<int64_t>(last + 1 + i, 0, o.maxSeqLen - 1));
      if (!pack.meta.empty()) pack.meta.push_back(PositionMeta{.kind = PositionKind::Padding});
    }
    if (padding > 0) pack.seqLens.push_back(padding);
    packs.push_back(std::move(pack));
  }

  Sample splitAndAdd(const Sample& cur) {
    size_t boundary;
    std::vector<int64_t> seqLens(cur.seqLens.begin(), cur.seqLens.end() - 1);
    if (o.splitAcrossPack) {
      boundary = size_t(o.maxSeqLen);
      const int64_t leftover = o.maxSeqLen - std::accumulate(seqLens.begin(), seqLens.end(), int64_t(0));
      if (leftover > 0) seqLens.push_back(leftover);
    } else {
      boundary = previousBoundary;
    }
    auto head = [&]<class V>(const V& v) { return v.empty() ? V() : V(v.begin(), v.begin() + long(boundary)); };
    auto tail = [&]<class V>(const V& v) { return v.empty() ? V() : V(v.begin() + long(boundary), v.end()); };
    // The last sample goes to the next pack whole (no split) or in part (split: it is in both).
    std::vector<size_t> headOrigin = cur.origin;
    if (!o.splitAcrossPack) headOrigin.pop_back();
    add({head(cur.tokens), head(cur.labels), head(cur.inputPos), seqLens, headOrigin, head(cur.meta)});
    const int64_t next = o.splitAcrossPack ? int64_t(cur.tokens.size() - boundary) : cur.seqLens.back();
    return {tail(cur.tokens), tail(cur.labels), tail(cur.inputPos), {next}, {cur.origin.back()}, tail(cur.meta)};
  }
};

} // namespace

std::vector<Sample> packDataset(const std::vector<Sample>& samples, const PackOptions& o) {
  if (o.maxSeqLen < 1) throw Error("max_seq_len must be at least 1", {.field = "max_seq_len"});
  Packer p{o};
  Sample cur;
  // Role facts travel with the tokens when every sample has them (message rows), else none do.
  const bool withMeta = std::all_of(samples.begin(), samples.end(), [](const Sample& s) {
    return !s.meta.empty() && s.meta.size() == s.tokens.size();
  });
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    cur.origin.push_back(i);
    const int64_t n = int64_t(s.tokens.size());
    if (n > o.maxSeqLen && !o.splitAcrossPack)
      throw Error("Dataset sample is too long (" + std::to_string(n) + " > " + std::to_string(o.maxSeqLen) +
                  "). Please set `split_across_pack=True` or increase `max_seq_len`.");
    cur.tokens.insert(cur.tokens.end(), s.tokens.begin(), s.tokens.end());
    cur.labels.insert(cur.labels.end(), s.labels.begin(), s.labels.end());
    if (withMeta) cur.meta.insert(cur.meta.end(), s.meta.begin(), s.meta.end());
    for (int64_t x = 0; x < n; ++x) cur.inputPos.push_back(x % o.maxSeqLen);
    cur.seqLens.push_back(n);
    while (int64_t(cur.tokens.size()) > o.maxSeqLen && !p.shouldStop()) cur = p.splitAndAdd(cur);
    p.previousBoundary = cur.tokens.size();
    if (p.shouldStop()) break;
  }
  if (!cur.tokens.empty() && (!o.maxPacks || int64_t(p.packs.size()) < *o.maxPacks)) p.add(cur);
  return p.packs;
}

std::vector<int64_t> unshiftLabels(const std::vector<int64_t>& preShifted) {
  std::vector<int64_t> hf(preShifted.size(), kIgnoreIndex);
  for (size_t t = 1; t < preShifted.size(); ++t) hf[t] = preShifted[t - 1];
  return hf;
}

} // namespace maskscope::torchtune
