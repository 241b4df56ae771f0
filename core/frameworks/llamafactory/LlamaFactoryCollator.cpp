// LLaMA-Factory's SFT collator for text rows, in the order its __call__ runs: DataCollatorForSeq2Seq
// (tokenizer.pad right-pads input_ids with the pad id and attention_mask with 0, leaves position_ids
// alone; labels padded by hand to the same rounded length), then the 4-D mask or the FA2 unpadding,
// then position_ids right-padded with 0.
#include "core/frameworks/llamafactory/LlamaFactoryCollator.h"

#include "core/util/Error.h"

#include <algorithm>
#include <limits>

namespace maskscope::llamafactory {

double finfoMin(const std::string& dtype) {
  if (dtype == "bfloat16") return -3.3895313892515355e+38; // -(2 - 2^-7) * 2^127
  if (dtype == "float16") return -65504.0;
  return double(std::numeric_limits<float>::lowest()); // float32: -3.4028234663852886e+38
}

double CollatedBatch::mask4d(int64_t b, int64_t q, int64_t k) const {
  // (indices == indices_t) & non_padding_mask & tril_mask, then where(..., 0, min_dtype)
  const int64_t qi = attentionMask.at(b, q), ki = attentionMask.at(b, k);
  return (k <= q && ki != 0 && qi == ki) ? 0.0 : maskedValue;
}

namespace {

IntGrid padRows(const std::vector<std::vector<int64_t>>& rows, int64_t width, int64_t fill) {
  IntGrid g(int64_t(rows.size()), width, fill);
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t t = 0; t < rows[r].size(); ++t) g.at(int64_t(r), int64_t(t)) = rows[r][t];
  return g;
}

// _unpad_packed_features: with one row, every tensor on the sequence axis keeps the positions whose
// attention_mask is not 0.
void unpadPacked(CollatedBatch& b) {
  if (b.attentionMask.rows != 1) return;
  std::vector<int64_t> keep;
  for (int64_t t = 0; t < b.attentionMask.cols; ++t)
    if (b.attentionMask.at(0, t) != 0) keep.push_back(t);
  if (int64_t(keep.size()) == b.attentionMask.cols) return;
  const int64_t seqLen = b.attentionMask.cols;
  // Only tensors whose sequence axis has the batch's length are cut (value.size(-1) == seq_len):
  // position_ids not yet padded to a multiple of 8 stay as they are.
  auto select = [&](IntGrid& g) {
    if (g.rows != 1 || g.cols != seqLen) return;
    IntGrid out(1, int64_t(keep.size()));
    for (size_t i = 0; i < keep.size(); ++i) out.at(0, int64_t(i)) = g.at(0, keep[i]);
    g = std::move(out);
  };
  select(b.inputIds);
  select(b.labels);
  if (b.positionIds) select(*b.positionIds);
  select(b.attentionMask);
}

} // namespace

CollatedBatch collate(const std::vector<SupervisedRow>& rows, const CollatorOptions& o) {
  if (rows.empty()) throw Error("no rows to collate");
  CollatedBatch b;
  int64_t longest = 0, labelLongest = 0;
  for (const SupervisedRow& r : rows) {
    longest = std::max<int64_t>(longest, int64_t(r.inputIds.size()));
    labelLongest = std::max<int64_t>(labelLongest, int64_t(r.labels.size()));
  }
  auto roundUp = [&](int64_t n) {
    const int64_t m = o.padToMultipleOf.value_or(1);
    return m > 1 ? (n + m - 1) / m * m : n;
  };
  const int64_t width = roundUp(longest);
  std::vector<std::vector<int64_t>> ids, masks, labels, positions;
  size_t withPositions = 0;
  for (const SupervisedRow& r : rows) {
    ids.push_back(r.inputIds);
    masks.push_back(r.attentionMask);
    labels.push_back(r.labels);
    if (!r.positionIds.empty()) {
      ++withPositions;
      positions.push_back(r.positionIds);
    }
  }
  b.inputIds = padRows(ids, width, o.padTokenId);
  b.attentionMask = padRows(masks, width, 0);
  // Labels are padded to their own longest length, rounded the same way.
  b.labels = padRows(labels, roundUp(labelLongest), o.labelPadTokenId);
  if (withPositions != 0) {
    if (withPositions != rows.size()) throw Error("some rows have position_ids and some do not");
    // tokenizer.pad leaves position_ids as they are; torch.tensor needs them all of one length.
    for (const auto& p : positions)
      if (p.size() != positions.front().size())
        throw Error("position_ids of different lengths cannot be stacked (tokenizer.pad does not pad them)");
    b.positionIds = padRows(positions, int64_t(positions.front().size()), 0);
  }

  const bool fa2 = o.attnImplementation == "flash_attention_2";
  if (o.blockDiagAttn && !fa2) {
    b.attentionMaskIs4d = true;
    b.maskedValue = finfoMin(o.computeDtype);
  }
  if (o.neatPacking && fa2) {
    if (b.inputIds.rows != 1)
      throw Error("bsz should be 1 for neat packing: LLaMA-Factory asserts it under flash_attention_2, and these rows "
                  "pack into " +
                  std::to_string(b.inputIds.rows) + " rows (collate fewer dataset rows with --rows)");
    unpadPacked(b);
    b.attentionMaskIsNone = true;
  } else if (o.padPositionIds && b.positionIds && b.positionIds->cols < b.inputIds.cols) {
    IntGrid padded(b.positionIds->rows, b.inputIds.cols, 0); // F.pad(position_ids, (0, pad_len), value=0)
    for (int64_t r = 0; r < padded.rows; ++r)
      for (int64_t t = 0; t < b.positionIds->cols; ++t) padded.at(r, t) = b.positionIds->at(r, t);
    b.positionIds = std::move(padded);
  }
  return b;
}

} // namespace maskscope::llamafactory
