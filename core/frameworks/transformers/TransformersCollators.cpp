// transformers' DataCollatorWithFlattening, DataCollatorForLanguageModeling(mlm=False) and
// DataCollatorForSeq2Seq (src/transformers/data/data_collator.py, 4.5x) on pre-tokenized features.
#include "core/frameworks/ChatTokenization.h"
#include "core/frameworks/transformers/Transformers.h"
#include "core/util/Error.h"

namespace maskscope::transformers {

using Rows = std::vector<std::vector<int64_t>>;

std::vector<PreparedRow> readFeatures(const std::vector<InputRow>& rows, const FrameworkContext& ctx) {
  std::vector<PreparedRow> out;
  for (const InputRow& row : rows) {
    PreparedRow r;
    if (!row.value.contains("input_ids")) {
      if (!row.value.contains("text") || !row.value["text"].is_string())
        throwRowError(row, "input_ids", "missing (a row holds input_ids, or a \"text\" to tokenize with --tokenizer)");
      std::vector<int64_t> t = tokenizeText(ctx.requireTokenizer("a text row"), row.value["text"].get<std::string>());
      r.set("attention_mask", std::vector<int64_t>(t.size(), 1));
      r.set("input_ids", std::move(t));
      std::swap(r.columns[0], r.columns[1]); // tokenizer(text): input_ids, attention_mask
    } else {
      r = readPreTokenizedRow(row, ctx.vocabSize(), {{"attention_mask"}, false, false});
    }
    r.sourceRows = {row.index};
    r.sourceLines = {row.line};
    out.push_back(std::move(r));
  }
  return out;
}

namespace {

class Flattening final : public FrameworkImpl {
public:
  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override {
    return readFeatures(rows, ctx);
  }

  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override {
    const FrameworkSpec& s = ctx.spec;
    const int64_t separator = s.integer("separator_id");
    const bool labelsGiven = rows.front().has("labels"); // "labels" in features[0]
    std::vector<int64_t> ids, labels, positions, seqIdx, cu = {0};
    int64_t maxLength = 0;
    for (size_t k = 0; k < rows.size(); ++k) {
      const auto& in = rows[k].at("input_ids");
      const auto& lab = labelsGiven ? rows[k].at("labels") : in;
      if (lab.empty()) throw Error("row " + std::to_string(k) + ": empty labels");
      ids.insert(ids.end(), in.begin(), in.end());
      labels.push_back(separator); // [separator_id] + labels[1:]
      labels.insert(labels.end(), lab.begin() + 1, lab.end());
      for (size_t i = 0; i < in.size(); ++i) {
        positions.push_back(int64_t(i));
        seqIdx.push_back(int64_t(k));
      }
      cu.push_back(cu.back() + int64_t(in.size()));
      maxLength = std::max(maxLength, int64_t(in.size()));
    }
    if (int64_t(ids.size()) > kMaxFrameworkBatchCells) throw Error("the flattened row is over 2^24 tokens");
    FrameworkBatch out;
    out.addGrid("input_ids", {ids}, TensorDType::Int64);
    out.addGrid("labels", {labels}, TensorDType::Int64);
    if (s.flag("return_position_ids")) out.addGrid("position_ids", {positions}, TensorDType::Int64);
    if (s.flag("return_seq_idx")) out.addGrid("seq_idx", {seqIdx}, TensorDType::Int32);
    if (s.flag("return_flash_attn_kwargs")) {
      out.add1D("cu_seq_lens_q", cu, TensorDType::Int32);
      out.add1D("cu_seq_lens_k", cu, TensorDType::Int32);
      out.addInt("max_length_q", maxLength);
      out.addInt("max_length_k", maxLength);
    }
    ctx.facts.paddingFree = true;
    ctx.facts.padTokenId = ctx.tokenId("pad_token_id", "pad");
    ctx.facts.eosTokenId = ctx.tokenId("eos_token_id", "eos");
    return out;
  }
};

// tokenizer.pad(features): input_ids padded with the pad id on tokenizer.padding_side, an
// attention_mask (the features' own, else ones) padded with 0, other keys kept as they are.
class Padding final : public FrameworkImpl {
public:
  explicit Padding(bool seq2seq) : seq2seq_(seq2seq) {}
  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override {
    return readFeatures(rows, ctx);
  }
  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override;

private:
  bool seq2seq_;
};

FrameworkBatch Padding::collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const {
  const FrameworkSpec& s = ctx.spec;
  if (!seq2seq_ && s.flag("mlm"))
    throw Error("mlm=true masks random tokens (not reproducible); maskscope reproduces mlm=false",
                {s.source, -1, -1, -1, "mlm"});
  const std::optional<int64_t> pad = ctx.tokenId("pad_token_id", "pad");
  ctx.facts.padTokenId = pad;
  ctx.facts.eosTokenId = ctx.tokenId("eos_token_id", "eos");
  const bool left = s.string("padding_side") == "left";
  const std::optional<int64_t> multiple = s.optionalInteger("pad_to_multiple_of");
  std::optional<int64_t> fixed;
  if (seq2seq_ && s.string("padding") == "max_length" && s.optionalInteger("max_length")) {
    fixed = s.optionalInteger("max_length");
    for (const auto& r : rows) fixed = std::max(*fixed, int64_t(r.at("input_ids").size())); // pad() never truncates
  }
  Rows ids, attention, labels;
  for (const auto& r : rows) {
    ids.push_back(r.at("input_ids"));
    attention.push_back(r.has("attention_mask") ? r.at("attention_mask") : std::vector<int64_t>(ids.back().size(), 1));
    if (r.has("labels")) labels.push_back(r.at("labels"));
  }
  const int64_t width = paddedWidth(ids, multiple, fixed);
  if (!pad && width != int64_t(ids.front().size()))
    throw Error("Asking to pad but the tokenizer does not have a padding token: give \"pad_token_id\" or a --tokenizer "
                "with a pad token",
                {s.source, -1, -1, -1, "pad_token_id"});
  FrameworkBatch out;
  // Keys in the features' order (tokenizer.pad keeps it), attention_mask added after them.
  for (const auto& c : rows.front().columns) {
    if (c.name == "input_ids")
      out.addGrid("input_ids", padRows(ids, pad.value_or(0), left, multiple, fixed), TensorDType::Int64);
    if (c.name == "attention_mask")
      out.addGrid("attention_mask", padRows(attention, 0, left, multiple, fixed), TensorDType::Int64);
    if (c.name == "labels" && !seq2seq_) {
      for (const auto& l : labels)
        if (int64_t(l.size()) != width)
          throw Error("Unable to create tensor, you should probably activate truncation and/or padding with "
                      "'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your "
                      "features (`labels` in this case) have excessive nesting (inputs type `list` where type `int` "
                      "is expected).");
      out.addNone("labels"); // replaced below, in this position
    }
  }
  out.addGrid("attention_mask", padRows(attention, 0, left, multiple, fixed), TensorDType::Int64);
  if (seq2seq_) {
    if (labels.size() == rows.size()) {
      const int64_t labelPad = s.integer("label_pad_token_id");
      int64_t labelWidth = 0;
      for (const auto& l : labels) labelWidth = std::max(labelWidth, int64_t(l.size()));
      if (fixed) labelWidth = s.integer("max_length");
      if (multiple) labelWidth = (labelWidth + *multiple - 1) / *multiple * *multiple;
      out.addGrid("labels", padRows(labels, labelPad, left, std::nullopt, labelWidth), TensorDType::Int64);
    } else {
      out.addNone("labels");
    }
    return out;
  }
  // mlm=False: labels = input_ids, -100 wherever input_ids == pad_token_id.
  Rows lab = padRows(ids, pad.value_or(0), left, multiple, fixed);
  for (auto& r : lab)
    for (auto& v : r)
      if (pad && v == *pad) v = kIgnoreIndex;
  ctx.facts.masksLabelsByPadId = pad.has_value();
  out.addGrid("labels", lab, TensorDType::Int64);
  return out;
}

} // namespace

std::unique_ptr<FrameworkImpl> makeFlattening() { return std::make_unique<Flattening>(); }
std::unique_ptr<FrameworkImpl> makePadding(bool seq2seq) { return std::make_unique<Padding>(seq2seq); }

} // namespace maskscope::transformers
