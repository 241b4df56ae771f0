// Padding rules: pads must carry label -100 and attention_mask 0. Which positions are padding is
// the row layout's (the collator's metadata, else core/mask's paddingOfRow rule).
#include "core/lint/LintRegistry.h"

namespace maskscope {

namespace {

void padGraded(const RowInput& in) {
  int64_t graded = 0, padGraded = 0, first = -1;
  for (int64_t t = 0; t < in.T; ++t) {
    if (!in.graded(t)) continue;
    ++graded;
    if (!in.L.pad[size_t(t)]) continue;
    ++padGraded;
    if (first < 0) first = t;
  }
  if (padGraded > 0)
    in.emit("pad-graded", first,
            in.label(first) + ": " + num(padGraded) + " of " + num(graded) +
                " graded positions are padding (first at position " + num(first) + ")");
}

void padAttended(const RowInput& in) {
  if (!in.haveMask) return;
  int64_t attended = 0, first = -1;
  bool beforeReal = false;
  for (int64_t t = 0; t < in.T; ++t) {
    if (!in.L.pad[size_t(t)] || in.b.attentionMask.at(in.r, t) == 0) continue;
    ++attended;
    if (first < 0) first = t;
    if (t < in.L.endReal) beforeReal = true;
  }
  if (attended > 0)
    in.emit("pad-attended", first,
            in.label(first) + ": attention_mask is 1 on " + num(attended) + " of " + num(in.L.padCount) +
                " padding positions (first at position " + num(first) + ")" +
                (beforeReal ? "; real tokens after them attend to them"
                            : "; right padding, so only the pads themselves are affected"),
            beforeReal ? Severity::Error : Severity::Warning);
}

} // namespace

const std::vector<LintRule>& paddingRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info =
           {"pad-graded", S::Error, "padding positions carry real labels",
            "Labels decide what the model is graded on: at every position whose label is not -100 the loss asks the "
            "model to predict that token. Padding is not text, so its labels must be -100. When labels are a plain "
            "copy of input_ids (labels = input_ids, or DataCollatorForLanguageModeling with pad_token = eos_token) "
            "every pad becomes a training target: the model spends its gradient learning to predict pad after pad, "
            "the real tokens' share of the loss shrinks, and it learns to emit pad/EOS too early. Fix: set labels to "
            "-100 wherever attention_mask == 0 (labels[attention_mask == 0] = -100), or use DataCollatorForSeq2Seq / "
            "TRL's SFTTrainer, which do this.",
            "batch (padding from the collator, attention_mask, or trailing pad ids)"},
       .row = padGraded},
      {.info =
           {"pad-attended", S::Error, "attention_mask is 1 on padding",
            "attention_mask tells each query which keys exist: 1 = real token, 0 = padding. When padding is marked 1 "
            "(for example padding='max_length' with a hand-built mask of all ones) the real tokens can attend to pads. "
            "With right padding and causal attention the real tokens never look forward, so only the pads themselves "
            "are affected (reported as a warning); with left padding or pads in the middle of a row the real tokens "
            "read the pad embeddings and their outputs change (an error). Either way padding='max_length' with an "
            "all-ones mask is a sign the mask was not built by the tokenizer. Fix: use the attention_mask the "
            "tokenizer "
            "or collator returns (tokenizer(..., padding=True) gives 0 on pads).",
            "batch (padding from the collator, attention_mask, or trailing pad ids)"},
       .row = padAttended},
  };
  return rules;
}

} // namespace maskscope
