// trl.trainer.utils.DataCollatorForCompletionOnlyLM, TRL v0.18.2: transformers'
// DataCollatorForLanguageModeling(mlm=False) pads (tokenizer.pad: input_ids with the pad id,
// attention_mask, labels = input_ids with -100 wherever input_ids == pad id), then every label up
// to the end of the response template is -100 (only the last response without an instruction
// template; between each instruction and the next response with one). A row where a template is
// not found is all -100, with TRL's warning. padding_free flattens the batch (position_ids,
// cu_seq_lens_q/k as [1, n+1] int32, max_length_q/k as 1-element tensors).
#include "core/frameworks/ChatTokenization.h"
#include "core/frameworks/trl/Trl.h"
#include "core/util/Error.h"

namespace maskscope::trl {

namespace {

using Rows = std::vector<std::vector<int64_t>>;

std::vector<int64_t> templateIds(const FrameworkContext& ctx, const char* key) {
  const OrderedJson& v = ctx.spec.value(key);
  if (v.is_array()) return v.get<std::vector<int64_t>>(); // ids: matched exactly
  const Tokenizer& tok = ctx.requireTokenizer((std::string("a string ") + key).c_str());
  return tokenizeText(tok, v.get<std::string>(), false); // tokenizer.encode(t, add_special_tokens=False)
}

// Where `needle` occurs in `row` (start indices), comparing as TRL does against the labels.
std::vector<int64_t> matches(const std::vector<int64_t>& row, const std::vector<int64_t>& needle) {
  std::vector<int64_t> out;
  if (needle.empty()) return out;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] != needle[0]) continue;
    // batch["labels"][i][idx : idx + len] == ids: a slice running past the end is shorter, so no match.
    if (i + needle.size() <= row.size() && std::equal(needle.begin(), needle.end(), row.begin() + long(i)))
      out.push_back(int64_t(i));
  }
  return out;
}

std::string shownTemplate(const OrderedJson& v) {
  if (v.is_string()) return v.get<std::string>();
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i].get<int64_t>());
  return s + "]";
}

class CompletionOnly final : public FrameworkImpl {
public:
  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override;
  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override;
  BatchConventions conventions() const override { return {}; }

private:
  void maskRow(std::vector<int64_t>& labels, const std::vector<int64_t>& ids, const PreparedRow& row,
               FrameworkContext& ctx) const;
};

std::vector<PreparedRow> CompletionOnly::prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const {
  if (ctx.spec.value("response_template").is_null())
    throw Error("DataCollatorForCompletionOnlyLM needs \"response_template\" (a string or token ids)",
                {ctx.spec.source, -1, -1, -1, "response_template"});
  if (ctx.spec.flag("mlm"))
    throw Error("mlm=true is a masked-LM objective; refused", {ctx.spec.source, -1, -1, -1, "mlm"});
  IdRange range;
  if (ctx.tokenizer) range.vocabSize = ctx.tokenizer->vocabSize();
  const std::string field = ctx.spec.string("dataset_text_field");
  std::vector<PreparedRow> out;
  for (const InputRow& row : rows) {
    PreparedRow r;
    if (row.value.contains("input_ids")) {
      const std::vector<int64_t> ids = requireIdColumn(row, "input_ids", range);
      r.set("input_ids", ids);
      if (auto m = readMaskColumn(row, "attention_mask")) {
        requireSameLength(row, "attention_mask", m->size(), "input_ids", ids.size());
        r.set("attention_mask", std::move(*m));
      }
    } else {
      // SFTTrainer 0.18 on a text column: tokenizer(text) truncated to max_length.
      if (!row.value.contains(field) || !row.value[field].is_string())
        throwRowError(row, field, "expected input_ids or a text column \"" + field + "\"");
      std::vector<int64_t> ids =
          tokenizeText(ctx.requireTokenizer("a text row"), row.value[field].get<std::string>(), true);
      if (auto maxLength = ctx.spec.optionalInteger("max_length"); maxLength && int64_t(ids.size()) > *maxLength)
        ids.resize(size_t(*maxLength));
      r.set("input_ids", std::move(ids));
    }
    r.sourceRows = {row.index};
    r.sourceLines = {row.line};
    out.push_back(std::move(r));
  }
  return out;
}

void CompletionOnly::maskRow(std::vector<int64_t>& labels, const std::vector<int64_t>& ids, const PreparedRow& row,
                             FrameworkContext& ctx) const {
  const int64_t ignore = ctx.spec.integer("ignore_index");
  const std::vector<int64_t> response = templateIds(ctx, "response_template");
  const bool haveInstruction = !ctx.spec.value("instruction_template").is_null();
  auto notFound = [&](const char* which, const char* option) {
    std::string text;
    if (ctx.tokenizer) {
      std::vector<int32_t> ids32(ids.begin(), ids.end());
      text = ctx.tokenizer->decode(ids32);
    } else {
      for (int64_t id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
    }
    ctx.facts.warnings.push_back(std::string("Could not find ") + which + " key `" +
                                 shownTemplate(ctx.spec.value(option)) + "` in the following instance: " + text +
                                 ". This instance will be ignored in loss calculation. Note, if this happens often, "
                                 "consider increasing the `max_length`.");
    if (ctx.facts.markerNotFound.empty() || ctx.facts.markerNotFound.back().row != row.sourceRows.front())
      ctx.facts.markerNotFound.push_back(
          {row.sourceRows.front(), row.sourceLines.front(), std::string(option) + " not found"});
    ctx.facts.markerOption = option;
    std::fill(labels.begin(), labels.end(), ignore);
  };
  const std::vector<int64_t> starts = matches(labels, response);
  if (!haveInstruction) {
    if (starts.empty()) return notFound("response", "response_template");
    const int64_t end = std::min<int64_t>(starts.back() + int64_t(response.size()), int64_t(labels.size()));
    std::fill(labels.begin(), labels.begin() + end, ignore);
    return;
  }
  std::vector<int64_t> responseEnds;
  for (int64_t s : starts) responseEnds.push_back(s + int64_t(response.size()));
  const std::vector<int64_t> instruction = templateIds(ctx, "instruction_template");
  std::vector<int64_t> humanStarts = matches(labels, instruction);
  if (responseEnds.empty()) notFound("response", "response_template");
  if (humanStarts.empty()) notFound("instruction", "instruction_template");
  if (!humanStarts.empty() && !responseEnds.empty() && humanStarts[0] > responseEnds[0])
    humanStarts.insert(humanStarts.begin(), 0);
  const int64_t T = int64_t(labels.size());
  for (size_t k = 0; k < std::min(humanStarts.size(), responseEnds.size()); ++k) {
    const int64_t from = k == 0 ? 0 : std::min(humanStarts[k], T), to = std::min(responseEnds[k], T);
    for (int64_t t = from; t < to; ++t) labels[size_t(t)] = ignore;
  }
  if (responseEnds.size() < humanStarts.size())
    for (int64_t t = std::min(humanStarts.back(), T); t < T; ++t) labels[size_t(t)] = ignore;
}

FrameworkBatch CompletionOnly::collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const {
  const FrameworkSpec& s = ctx.spec;
  const std::optional<int64_t> padId = ctx.tokenId("pad_token_id", "pad");
  ctx.facts.padTokenId = padId;
  ctx.facts.eosTokenId = ctx.tokenId("eos_token_id", "eos");
  ctx.facts.masksLabelsByPadId = padId.has_value();
  if (!s.value("instruction_template").is_null() && padId && padId == ctx.facts.eosTokenId)
    ctx.facts.warnings.push_back("The pad_token_id and eos_token_id values of this tokenizer are identical. If you are "
                                 "planning for multi-turn training, it can result in the model continuously "
                                 "generating questions and answers without eos token. To avoid this, set the "
                                 "pad_token_id to a different value.");
  const bool left = s.string("padding_side") == "left";
  const std::optional<int64_t> multiple = s.optionalInteger("pad_to_multiple_of");
  Rows ids, attention;
  for (const PreparedRow& r : rows) {
    ids.push_back(r.at("input_ids"));
    attention.push_back(r.has("attention_mask") ? r.at("attention_mask") : std::vector<int64_t>(ids.back().size(), 1));
  }
  if (!padId && paddedWidth(ids, multiple) != int64_t(ids.front().size()))
    throw Error("Asking to pad but the tokenizer does not have a padding token: give \"pad_token_id\" or a --tokenizer "
                "with a pad token",
                {s.source, -1, -1, -1, "pad_token_id"});
  ids = padRows(ids, padId.value_or(0), left, multiple);
  attention = padRows(attention, 0, left, multiple);
  Rows labels = ids;
  for (auto& r : labels)
    for (auto& v : r)
      if (padId && v == *padId) v = kIgnoreIndex; // labels[labels == pad_token_id] = -100
  for (size_t i = 0; i < rows.size(); ++i) maskRow(labels[i], ids[i], rows[i], ctx);
  FrameworkBatch out;
  if (!s.flag("padding_free")) {
    const bool attentionFirst = !rows.front().columns.empty() && rows.front().columns.front().name == "attention_mask";
    if (attentionFirst) out.addGrid("attention_mask", attention, TensorDType::Int64);
    out.addGrid("input_ids", ids, TensorDType::Int64);
    out.addGrid("attention_mask", attention, TensorDType::Int64);
    out.addGrid("labels", labels, TensorDType::Int64);
    return out;
  }
  // Remove padding: keep attended positions; position_ids = cumsum(attention) - 1 there.
  std::vector<int64_t> flatIds, flatLabels, positions, cu;
  const int64_t ignore = s.integer("ignore_index");
  for (size_t r = 0; r < ids.size(); ++r) {
    int64_t seen = 0;
    for (size_t t = 0; t < ids[r].size(); ++t) {
      if (attention[r][t] == 0) continue;
      if (seen == 0) cu.push_back(int64_t(flatIds.size()));
      flatIds.push_back(ids[r][t]);
      flatLabels.push_back(seen == 0 ? ignore : labels[r][t]);
      positions.push_back(seen++);
    }
  }
  int64_t maxPos = 0;
  for (int64_t p : positions) maxPos = std::max(maxPos, p);
  cu.push_back(int64_t(flatIds.size()));
  ctx.facts.paddingFree = true;
  out.addGrid("input_ids", {flatIds}, TensorDType::Int64);
  out.addGrid("labels", {flatLabels}, TensorDType::Int64);
  out.addGrid("position_ids", {positions}, TensorDType::Int64);
  out.addGrid("cu_seq_lens_q", {cu}, TensorDType::Int32);
  out.addGrid("cu_seq_lens_k", {cu}, TensorDType::Int32);
  out.add1D("max_length_k", {maxPos + 1}, TensorDType::Int64);
  out.add1D("max_length_q", {maxPos + 1}, TensorDType::Int64);
  return out;
}

} // namespace

std::unique_ptr<FrameworkImpl> makeCompletionOnly(const FrameworkSpec&) { return std::make_unique<CompletionOnly>(); }

} // namespace maskscope::trl
