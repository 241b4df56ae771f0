// trl.trainer.dpo_trainer.DataCollatorForPreference. 1.10 / 1.6: prompt_ids + chosen_ids and
// prompt_ids + rejected_ids as one batch (chosen rows first, then rejected rows), truncated per
// sequence (max_length, truncation_mode), right-padded, with attention_mask and completion_mask.
// 0.18: prompt_input_ids left-padded, chosen_input_ids / rejected_input_ids right-padded, each with
// its attention mask. Rows are pre-tokenized (DPOTrainer's tokenized columns).
#include "core/frameworks/FrameworkBatch.h"
#include "core/frameworks/FrameworkToBatch.h"
#include "core/frameworks/trl/Trl.h"
#include "core/util/Error.h"

namespace maskscope::trl {

namespace {

using Rows = std::vector<std::vector<int64_t>>;

struct Keys {
  const char* prompt;
  const char* chosen;
  const char* rejected;
};
Keys keysOf(bool v018) {
  return v018 ? Keys{"prompt_input_ids", "chosen_input_ids", "rejected_input_ids"}
              : Keys{"prompt_ids", "chosen_ids", "rejected_ids"};
}

class Preference final : public FrameworkImpl {
public:
  explicit Preference(bool v018) : v018_(v018) {}

  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override {
    const Keys k = keysOf(v018_);
    IdRange ids;
    if (ctx.tokenizer) ids.vocabSize = ctx.tokenizer->vocabSize();
    std::vector<PreparedRow> out;
    for (const InputRow& row : rows) {
      for (const char* f : {"ref_chosen_logps", "ref_rejected_logps"})
        if (row.value.contains(f))
          throwRowError(row, f, "reference log-probabilities are floats; maskscope reproduces the token tensors only");
      if (!row.value.contains(k.prompt))
        throwRowError(row, k.prompt,
                      "missing: DataCollatorForPreference takes DPOTrainer's tokenized columns (" +
                          std::string(k.prompt) + ", " + k.chosen + ", " + k.rejected +
                          "); for text pairs use collate without a framework spec (docs/cli.md, Preference data)");
      PreparedRow r;
      for (const char* key : {k.prompt, k.chosen, k.rejected}) r.set(key, requireIdColumn(row, key, ids));
      r.sourceRows = {row.index};
      r.sourceLines = {row.line};
      out.push_back(std::move(r));
    }
    return out;
  }

  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override {
    const int64_t pad = ctx.padTokenIdOrEos();
    ctx.facts.padTokenId = pad;
    ctx.facts.eosTokenId = ctx.tokenId("eos_token_id", "eos");
    return v018_ ? collate018(rows, pad) : collate110(rows, ctx, pad);
  }

  Batch toBatch(const FrameworkBatch& batch, const std::vector<PreparedRow>& rows,
                FrameworkContext& ctx) const override;

private:
  FrameworkBatch collate110(const std::vector<PreparedRow>& rows, const FrameworkContext& ctx, int64_t pad) const;
  FrameworkBatch collate018(const std::vector<PreparedRow>& rows, int64_t pad) const;
  bool v018_;
};

FrameworkBatch Preference::collate110(const std::vector<PreparedRow>& rows, const FrameworkContext& ctx,
                                      int64_t pad) const {
  const Keys k = keysOf(false);
  const std::optional<int64_t> maxLength = ctx.spec.optionalInteger("max_length");
  const bool keepEnd = ctx.spec.string("truncation_mode") == "keep_end";
  Rows ids, attention, completion;
  for (const char* side : {k.chosen, k.rejected})
    for (const PreparedRow& r : rows) {
      std::vector<int64_t> seq = r.at(k.prompt), mask(r.at(k.prompt).size(), 0);
      seq.insert(seq.end(), r.at(side).begin(), r.at(side).end());
      mask.resize(seq.size(), 1);
      truncateSequence(seq, maxLength, keepEnd);
      truncateSequence(mask, maxLength, keepEnd);
      attention.emplace_back(seq.size(), 1);
      ids.push_back(std::move(seq));
      completion.push_back(std::move(mask));
    }
  const std::optional<int64_t> multiple = ctx.spec.optionalInteger("pad_to_multiple_of");
  FrameworkBatch out;
  out.addGrid("input_ids", padRows(ids, pad, false, multiple), TensorDType::Int64);
  out.addGrid("attention_mask", padRows(attention, 0, false, multiple), TensorDType::Int64);
  out.addGrid("completion_mask", padRows(completion, 0, false, multiple), TensorDType::Int64);
  return out;
}

FrameworkBatch Preference::collate018(const std::vector<PreparedRow>& rows, int64_t pad) const {
  const Keys k = keysOf(true);
  FrameworkBatch out;
  const std::pair<const char*, const char*> parts[] = {{k.prompt, "prompt_attention_mask"},
                                                       {k.chosen, "chosen_attention_mask"},
                                                       {k.rejected, "rejected_attention_mask"}};
  for (const auto& [key, maskKey] : parts) {
    Rows ids, mask;
    for (const PreparedRow& r : rows) {
      ids.push_back(r.at(key));
      mask.emplace_back(r.at(key).size(), 1);
    }
    const bool left = std::string(key) == k.prompt; // the prompt is left-padded
    out.addGrid(key, padRows(ids, pad, left), TensorDType::Int64);
    out.addGrid(maskKey, padRows(mask, 0, left), TensorDType::Int64);
  }
  return out;
}

// The batch maskscope judges: one row per sequence the loss sees (chosen rows then rejected rows),
// labels = the input id on completion positions (the DPO loss mask), -100 elsewhere.
Batch Preference::toBatch(const FrameworkBatch& batch, const std::vector<PreparedRow>& rows,
                          FrameworkContext& ctx) const {
  const int64_t pad = ctx.facts.padTokenId.value_or(0);
  Rows ids, attention, labels;
  if (!v018_) {
    const FrameworkTensor& in = batch.find("input_ids")->tensor;
    const FrameworkTensor& cm = batch.find("completion_mask")->tensor;
    const FrameworkTensor& am = batch.find("attention_mask")->tensor;
    for (int64_t r = 0; r < in.shape[0]; ++r) {
      ids.emplace_back(), attention.emplace_back(), labels.emplace_back();
      for (int64_t t = 0; t < in.shape[1]; ++t) {
        ids.back().push_back(in.at(r, t));
        attention.back().push_back(am.at(r, t));
        labels.back().push_back(cm.at(r, t) != 0 ? in.at(r, t) : kIgnoreIndex);
      }
    }
  } else {
    const Keys k = keysOf(true);
    for (const char* side : {k.chosen, k.rejected})
      for (const PreparedRow& r : rows) {
        std::vector<int64_t> seq = r.at(k.prompt), lab(r.at(k.prompt).size(), kIgnoreIndex);
        seq.insert(seq.end(), r.at(side).begin(), r.at(side).end());
        lab.insert(lab.end(), r.at(side).begin(), r.at(side).end());
        attention.emplace_back(seq.size(), 1);
        ids.push_back(std::move(seq));
        labels.push_back(std::move(lab));
      }
    ids = padRows(ids, pad);
    attention = padRows(attention, 0);
    labels = padRows(labels, kIgnoreIndex);
  }
  FrameworkBatch view;
  view.addGrid("input_ids", ids, TensorDType::Int64);
  view.addGrid("attention_mask", attention, TensorDType::Int64);
  view.addGrid("labels", labels, TensorDType::Int64);
  std::vector<PreparedRow> sides; // chosen rows then rejected rows, for the source rows
  for (int s = 0; s < 2; ++s) sides.insert(sides.end(), rows.begin(), rows.end());
  for (auto& r : sides) r.meta.clear();
  return convertFrameworkBatch(view, BatchConventions{}, sides, ctx.facts);
}

} // namespace

std::unique_ptr<FrameworkImpl> makePreference(const FrameworkSpec& spec) {
  return std::make_unique<Preference>(spec.behaves("preference_prompt_columns"));
}

} // namespace maskscope::trl
