// Converting a framework batch into maskscope's Batch by its conventions (key names, pre-shifted
// labels, segment-id or block masks, cu_seq_lens), laying the prepared rows' roles and source rows
// onto the batch rows so that lint and the app can name roles and dataset rows.
#include "core/frameworks/FrameworkToBatch.h"
#include "core/mask/PackedSegments.h"
#include "core/util/Error.h"

namespace maskscope {

namespace {

// A [B, T] (or [T]: one row) integer tensor as a grid; Error naming the key on another shape.
IntGrid gridOf(const FrameworkBatch& batch, const std::string& key, const std::string& origin) {
  const FrameworkEntry* e = batch.find(key);
  if (!e || e->kind != FrameworkEntry::Kind::Tensor || e->tensor.dtype == TensorDType::Float32)
    throw Error("the batch has no integer tensor \"" + key + "\"", {origin, -1, -1, -1, key});
  const FrameworkTensor& t = e->tensor;
  if (t.shape.size() == 1) {
    IntGrid g(1, t.shape[0]);
    g.values = t.values;
    return g;
  }
  if (t.shape.size() != 2) throw Error("expected a [B, T] tensor", {origin, -1, -1, -1, key});
  IntGrid g(t.shape[0], t.shape[1]);
  g.values = t.values;
  return g;
}

bool hasTensor(const FrameworkBatch& batch, const std::string& key) {
  if (key.empty()) return false;
  const FrameworkEntry* e = batch.find(key);
  return e && e->kind == FrameworkEntry::Kind::Tensor;
}

// labels[t] = tokens[t + 1] (torchtune) -> the Hugging Face convention (label at t = token at t).
void unshiftLabels(IntGrid& labels) {
  for (int64_t r = 0; r < labels.rows; ++r) {
    for (int64_t t = labels.cols - 1; t > 0; --t) labels.at(r, t) = labels.at(r, t - 1);
    if (labels.cols > 0) labels.at(r, 0) = kIgnoreIndex;
  }
}

// A block-causal [B, T, T] / [B, 1, T, T] mask as segment ids 1, 2, ... per block; Error when a row
// of the mask is not "from my block's start through me".
IntGrid segmentsFromBlockMask(const FrameworkBatch& batch, const std::string& key, int64_t B, int64_t T,
                              const std::string& origin) {
  const FrameworkEntry* e = batch.find(key);
  const FrameworkTensor& m = e->tensor;
  const bool fourD = m.shape.size() == 4 && m.shape[1] == 1;
  if (!(m.shape.size() == 3 || fourD) || m.shape[0] != B || m.shape.back() != T || m.shape[m.shape.size() - 2] != T)
    throw Error("expected a [B, T, T] mask matching input_ids", {origin, -1, -1, -1, key});
  IntGrid seg(B, T, 0);
  for (int64_t b = 0; b < B; ++b) {
    int64_t id = 0, start = 0;
    for (int64_t i = 0; i < T; ++i) {
      auto cell = [&](int64_t j) { return m.values[size_t((b * T + i) * T + j)] != 0; };
      int64_t first = 0;
      while (first <= i && !cell(first)) ++first;
      // A block-causal row sees its block's start through itself: a new block starts at i, or the
      // row continues the block of the row before.
      bool ok = first <= i && (first == i || first == start);
      for (int64_t j = 0; ok && j < T; ++j) ok = cell(j) == (j >= first && j <= i);
      if (!ok)
        throw Error("row " + std::to_string(b) + ", query " + std::to_string(i) + ": the mask is not block-causal",
                    {origin, -1, -1, -1, key});
      if (first == i) ++id;
      start = first;
      seg.at(b, i) = id;
    }
  }
  return seg;
}

// cu_seq_lens of a one-row batch as its stated segments (checked as a dump's are).
void applyCuSeqLens(const FrameworkBatch& batch, const std::string& key, Batch& out, const std::string& origin) {
  const FrameworkEntry* e = batch.find(key);
  if (!e || e->kind != FrameworkEntry::Kind::Tensor || out.batchSize() != 1) return;
  const std::vector<int64_t>& cu = e->tensor.values;
  if (cu.size() < 2 || cu.front() != 0 || cu.back() > out.length())
    throw Error("must run from 0 to at most the row length", {origin, -1, -1, -1, key});
  std::vector<Segment> segs;
  for (size_t i = 1; i < cu.size(); ++i) {
    if (cu[i] <= cu[i - 1]) throw Error("offsets must increase", {origin, -1, -1, -1, key});
    segs.push_back({cu[i - 1], cu[i], -1});
  }
  out.segments.assign(1, segs.size() >= 2 ? segs : std::vector<Segment>{});
}

// Roles and source rows of the prepared rows, laid onto the batch rows: one batch row per prepared
// row (right- or left-padded), or every prepared row concatenated into one flattened row.
void layMeta(Batch& out, const std::vector<PreparedRow>& rows) {
  auto padMeta = [] {
    PositionMeta m;
    m.kind = PositionKind::Padding;
    return m;
  };
  const int64_t B = out.batchSize(), T = out.length();
  out.meta.clear();
  out.sourceRows.clear();
  if (rows.size() == size_t(B)) {
    for (int64_t r = 0; r < B; ++r)
      out.sourceRows.push_back(rows[size_t(r)].sourceRows.empty() ? -1 : rows[size_t(r)].sourceRows.front());
    // Roles only when every row has them (lint reads meta[r][t] for every row and position).
    for (const auto& row : rows)
      if (row.meta.empty() || int64_t(row.meta.size()) > T) return;
    for (int64_t r = 0; r < B; ++r) {
      const auto& m = rows[size_t(r)].meta;
      // Left padding puts the row's tokens at the end: where the attention mask starts.
      int64_t begin = 0;
      while (begin < T - int64_t(m.size()) && out.attentionMask.at(r, begin) == 0) ++begin;
      std::vector<PositionMeta> rowMeta(size_t(T), padMeta());
      std::copy(m.begin(), m.end(), rowMeta.begin() + begin);
      out.meta.push_back(std::move(rowMeta));
    }
    return;
  }
  if (B != 1 || rows.empty()) return;
  std::vector<PositionMeta> flat;
  for (const auto& r : rows) {
    if (r.meta.empty()) return;
    flat.insert(flat.end(), r.meta.begin(), r.meta.end());
  }
  if (int64_t(flat.size()) > T) return;
  flat.resize(size_t(T), padMeta());
  out.meta.push_back(std::move(flat));
  out.sourceRows.push_back(rows.empty() || rows.front().sourceRows.empty() ? -1 : rows.front().sourceRows.front());
}

// Packed segments get the dataset row each example came from, in order, when the counts agree.
void nameSegmentSources(Batch& out, const std::vector<PreparedRow>& rows) {
  std::vector<long> sources;
  for (const auto& r : rows) sources.insert(sources.end(), r.sourceRows.begin(), r.sourceRows.end());
  size_t next = 0;
  for (auto& rowSegs : out.segments)
    for (auto& s : rowSegs)
      if (next < sources.size()) s.sourceRow = sources[next++];
}

} // namespace

Batch convertFrameworkBatch(const FrameworkBatch& batch, const BatchConventions& c,
                            const std::vector<PreparedRow>& rows, const FrameworkFacts& facts) {
  const std::string origin = facts.description;
  Batch out;
  out.inputIds = gridOf(batch, c.inputIds, origin);
  const int64_t B = out.inputIds.rows, T = out.inputIds.cols;
  auto sameShape = [&](IntGrid g, const std::string& key) {
    if (!g.sameShape(out.inputIds)) throw Error("does not have input_ids' shape", {origin, -1, -1, -1, key});
    return g;
  };
  out.labels =
      hasTensor(batch, c.labels) ? sameShape(gridOf(batch, c.labels, origin), c.labels) : IntGrid(B, T, kIgnoreIndex);
  if (c.labelsPreShifted) unshiftLabels(out.labels);
  if (!c.blockMask.empty() && hasTensor(batch, c.blockMask))
    out.attentionMask = segmentsFromBlockMask(batch, c.blockMask, B, T, origin);
  else if (hasTensor(batch, c.attentionMask))
    out.attentionMask = sameShape(gridOf(batch, c.attentionMask, origin), c.attentionMask);
  else
    out.attentionMask = IntGrid(B, T, 1); // padding-free: no attention_mask, every position real
  if (hasTensor(batch, c.positionIds)) out.positionIds = sameShape(gridOf(batch, c.positionIds, origin), c.positionIds);
  if (!c.cuSeqLens.empty()) applyCuSeqLens(batch, c.cuSeqLens, out, origin);
  out.padTokenId = facts.padTokenId;
  out.eosTokenId = facts.eosTokenId;
  out.origin = facts.description;
  layMeta(out, rows);
  deriveSegments(out);
  nameSegmentSources(out, rows);
  return out;
}

} // namespace maskscope
