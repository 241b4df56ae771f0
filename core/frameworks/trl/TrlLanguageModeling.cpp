// trl.trainer.sft_trainer.DataCollatorForLanguageModeling, 1.10 (main 1.10.0.dev0) and 1.6.0:
// right padding (pad_token_id, pad_to_multiple_of), labels padded with -100, attention_mask of
// ones; padding_free flattens the batch into one row with position_ids (from seq_lengths when
// present), no attention_mask, and -100 wherever position_ids == 0. 1.6 additionally truncates
// (max_length, truncation_mode; not when padding_free) and applies completion_mask (when
// completion_only_loss) and assistant_masks itself.
#include "core/frameworks/FrameworkBatch.h"
#include "core/frameworks/trl/Trl.h"
#include "core/util/Error.h"

namespace maskscope::trl {

namespace {

using Rows = std::vector<std::vector<int64_t>>;

// get_position_ids_from_packed_seq_lengths: 0..len-1 per packed sequence.
std::vector<int64_t> positionsFromSeqLengths(const std::vector<int64_t>& seqLengths) {
  std::vector<int64_t> out;
  for (int64_t n : seqLengths)
    for (int64_t i = 0; i < n; ++i) out.push_back(i);
  return out;
}

struct Columns {
  Rows ids, labels, completion, assistant, positions;
  bool haveCompletion = false, haveAssistant = false, haveSeqLengths = false;
};

Columns gather(const std::vector<PreparedRow>& rows, bool v110, bool completionOnlyLoss) {
  Columns c;
  const PreparedRow& first = rows.front();
  c.haveSeqLengths = first.has("seq_lengths");
  c.haveCompletion = !v110 && completionOnlyLoss && first.has("completion_mask");
  c.haveAssistant = !v110 && first.has("assistant_masks");
  for (const PreparedRow& r : rows) {
    c.ids.push_back(r.at("input_ids"));
    c.labels.push_back(r.has("labels") ? r.at("labels") : r.at("input_ids")); // example.get("labels", input_ids)
    if (c.haveCompletion) c.completion.push_back(r.at("completion_mask"));
    if (c.haveAssistant) c.assistant.push_back(r.at("assistant_masks"));
    if (c.haveSeqLengths) {
      c.positions.push_back(positionsFromSeqLengths(r.at("seq_lengths")));
      if (c.positions.back().size() != c.ids.back().size())
        throw Error("seq_lengths of dataset row " + std::to_string(r.sourceRows.empty() ? -1 : r.sourceRows.front()) +
                    " do not sum to its length");
    }
  }
  return c;
}

void truncateAll(Columns& c, int64_t maxLength, bool keepEnd) {
  auto cut = [&](Rows& rows) {
    for (auto& v : rows) truncateSequence(v, maxLength, keepEnd);
  };
  cut(c.ids);
  cut(c.labels);
  cut(c.completion);
  cut(c.assistant);
}

Rows flatten(const Rows& rows) {
  std::vector<int64_t> all;
  for (const auto& r : rows) all.insert(all.end(), r.begin(), r.end());
  return {all};
}

class LanguageModeling final : public FrameworkImpl {
public:
  explicit LanguageModeling(bool v110) : v110_(v110) {}

  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override {
    return prepareSft(rows, ctx);
  }

  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override;

private:
  bool v110_;
};

FrameworkBatch LanguageModeling::collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const {
  const FrameworkSpec& s = ctx.spec;
  const int64_t pad = sftPadTokenId(ctx);
  ctx.facts.padTokenId = pad;
  ctx.facts.eosTokenId = ctx.tokenId("eos_token_id", "eos");
  // SFTTrainer: padding_free = args.padding_free or (packing with a bfd strategy).
  const bool paddingFree = s.flag("padding_free") || (s.flag("packing") && s.string("packing_strategy") != "wrapped");
  // SFTTrainer passes completion_only_loss as the preparation resolved it (None: prompt-completion rows).
  const bool completionOnly = ctx.resolved.value("completion_only_loss", false);
  Columns c = gather(rows, v110_, completionOnly);
  if (!v110_ && !paddingFree)
    if (auto maxLength = s.optionalInteger("max_length"))
      truncateAll(c, *maxLength, s.string("truncation_mode") == "keep_end");
  if (paddingFree) {
    if (!c.haveSeqLengths)
      for (const auto& r : c.ids) {
        c.positions.emplace_back(r.size());
        for (size_t i = 0; i < r.size(); ++i) c.positions.back()[i] = int64_t(i);
      }
    c.ids = flatten(c.ids);
    c.labels = flatten(c.labels);
    c.positions = flatten(c.positions);
    if (c.haveCompletion) c.completion = flatten(c.completion);
    if (c.haveAssistant) c.assistant = flatten(c.assistant);
    ctx.facts.paddingFree = true;
  }
  const std::optional<int64_t> multiple = s.optionalInteger("pad_to_multiple_of");
  FrameworkBatch out;
  out.addGrid("input_ids", padRows(c.ids, pad, false, multiple), TensorDType::Int64);
  Rows labels = padRows(c.labels, kIgnoreIndex, false, multiple);
  Rows positions, attention;
  if (paddingFree) {
    positions = padRows(c.positions, 0, false, multiple);
    for (size_t t = 0; t < labels[0].size(); ++t)
      if (positions[0][t] == 0) labels[0][t] = kIgnoreIndex;
  } else {
    for (const auto& r : c.ids) attention.emplace_back(r.size(), 1);
    attention = padRows(attention, 0, false, multiple);
  }
  auto applyMask = [&](const Rows& mask) {
    const Rows padded = padRows(mask, 0, false, multiple);
    for (size_t r = 0; r < labels.size(); ++r)
      for (size_t t = 0; t < labels[r].size(); ++t)
        if (padded[r][t] == 0) labels[r][t] = kIgnoreIndex;
  };
  if (c.haveCompletion) applyMask(c.completion);
  if (c.haveAssistant) applyMask(c.assistant);
  // Key order as the collator fills `output`: input_ids, labels, then position_ids or attention_mask;
  // DataCollatorForVisionLanguageModeling takes the processor's input_ids and attention_mask and adds labels.
  if (ctx.resolved.value("vision_language_collator", false)) {
    out.addGrid("attention_mask", attention, TensorDType::Int64);
    out.addGrid("labels", labels, TensorDType::Int64);
    return out;
  }
  out.addGrid("labels", labels, TensorDType::Int64);
  if (paddingFree)
    out.addGrid("position_ids", positions, TensorDType::Int64);
  else
    out.addGrid("attention_mask", attention, TensorDType::Int64);
  return out;
}

} // namespace

std::unique_ptr<FrameworkImpl> makeLanguageModeling(const FrameworkSpec& spec) {
  return std::make_unique<LanguageModeling>(spec.behaves("labels_built_in_preparation"));
}

} // namespace maskscope::trl
