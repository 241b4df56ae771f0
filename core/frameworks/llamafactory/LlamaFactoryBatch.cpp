// SFTDataCollatorWith4DAttentionMask's returned dict, key by key, and the 4-D mask read back into the
// example indices it was built from (for lint, loss and the app, which take segment ids).
#include "core/frameworks/llamafactory/LlamaFactory.h"

#include "core/util/Error.h"

namespace maskscope::llamafactory {

namespace {

std::vector<std::vector<int64_t>> rowsOf(const IntGrid& g) {
  std::vector<std::vector<int64_t>> out(size_t(g.rows));
  for (int64_t r = 0; r < g.rows; ++r)
    out[size_t(r)].assign(g.values.begin() + r * g.cols, g.values.begin() + (r + 1) * g.cols);
  return out;
}

void addAttention(FrameworkBatch& out, const CollatedBatch& b) {
  if (b.attentionMaskIsNone) {
    out.addNone("attention_mask");
    return;
  }
  if (!b.attentionMaskIs4d) {
    out.addGrid("attention_mask", rowsOf(b.attentionMask), TensorDType::Int64);
    return;
  }
  const int64_t B = b.attentionMask.rows, T = b.attentionMask.cols;
  if (B * T * T > kMaxFrameworkBatchCells)
    throw Error("the [B, 1, T, T] attention mask would hold " + std::to_string(B * T * T) +
                " values, over the cap of 2^24 (use fewer rows or a shorter cutoff_len)");
  FrameworkTensor t;
  t.dtype = TensorDType::Float32;
  t.shape = {B, 1, T, T};
  t.floats.reserve(size_t(B * T * T));
  for (int64_t r = 0; r < B; ++r)
    for (int64_t q = 0; q < T; ++q)
      for (int64_t k = 0; k < T; ++k) t.floats.push_back(b.mask4d(r, q, k));
  out.addTensor("attention_mask", std::move(t));
}

} // namespace

FrameworkBatch toFrameworkBatch(const CollatedBatch& b, const PreparedRow& firstFeature, bool attentionGiven) {
  FrameworkBatch out;
  for (const PreparedColumn& c : firstFeature.columns) {
    if (c.name == "input_ids") out.addGrid("input_ids", rowsOf(b.inputIds), TensorDType::Int64);
    if (c.name == "attention_mask") addAttention(out, b);
    if (c.name == "position_ids" && b.positionIds)
      out.addGrid("position_ids", rowsOf(*b.positionIds), TensorDType::Int64);
  }
  if (!attentionGiven) addAttention(out, b); // tokenizer.pad adds it after the features' keys
  if (b.tokenTypeIds) out.addGrid("token_type_ids", rowsOf(*b.tokenTypeIds), TensorDType::Int64);
  out.addGrid("labels", rowsOf(b.labels), TensorDType::Int64); // DataCollatorForSeq2Seq adds labels last
  return out;
}

FrameworkBatch withSegmentIds(const FrameworkBatch& batch) {
  FrameworkBatch out;
  for (const FrameworkEntry& e : batch.entries()) {
    if (e.key != "attention_mask" || e.kind != FrameworkEntry::Kind::Tensor || e.tensor.shape.size() != 4) {
      if (e.kind == FrameworkEntry::Kind::Tensor)
        out.addTensor(e.key, e.tensor);
      else if (e.kind == FrameworkEntry::Kind::Int)
        out.addInt(e.key, e.scalar);
      else if (e.kind == FrameworkEntry::Kind::IntList)
        out.addList(e.key, e.list);
      else
        out.addNone(e.key);
      continue;
    }
    // Row q of the [T, T] block attends to keys [start, q] of its own example: its first attended key
    // names the example; a row attending to nothing is padding (0).
    const int64_t B = e.tensor.shape[0], T = e.tensor.shape[3];
    std::vector<std::vector<int64_t>> ids(size_t(B), std::vector<int64_t>(size_t(T), 0));
    for (int64_t r = 0; r < B; ++r) {
      int64_t segment = 0, lastStart = -1;
      for (int64_t q = 0; q < T; ++q) {
        const double* row = e.tensor.floats.data() + (r * T + q) * T;
        int64_t start = -1;
        for (int64_t k = 0; k <= q && start < 0; ++k)
          if (row[k] == 0.0) start = k;
        if (start < 0) continue;
        if (start != lastStart) {
          ++segment;
          lastStart = start;
        }
        ids[size_t(r)][size_t(q)] = segment;
      }
    }
    out.addGrid("attention_mask", ids, TensorDType::Int64);
  }
  return out;
}

} // namespace maskscope::llamafactory
