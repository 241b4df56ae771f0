// Position rules: position ids restart in every packed example and skip left padding, generation
// batches are left-padded, and each sequence starts with at most one BOS.
#include "core/lint/LintRegistry.h"

namespace maskscope {

namespace {

void positionIdsNotReset(const RowInput& in) {
  if (!in.L.packed()) return;
  int64_t notReset = 0, first = -1;
  for (size_t i = 1; i < in.L.examples.size(); ++i) {
    const int64_t t = in.L.examples[i].begin;
    if (in.havePos && in.b.positionIds.at(in.r, t) == 0) continue;
    ++notReset;
    if (first < 0) first = t;
  }
  if (notReset == 0) return;
  std::string msg = in.label(first) + ": " + num(notReset) + " packed example(s) do not restart position ids at 0 (" +
                    (in.havePos ? "position id " + num(in.b.positionIds.at(in.r, first)) + " where an example starts"
                                : std::string("position_ids not given, so the model counts across the row"));
  if (!in.o.datasetPositions) msg += "; examples start at " + in.L.boundaries();
  in.emit("position-ids-not-reset", first, msg + ")");
}

void leftPadPositions(const RowInput& in) {
  const int64_t t = in.L.firstReal;
  if (!in.L.leftPadded() || t >= in.T) return;
  if (!in.havePos)
    in.emit("left-pad-positions", t,
            in.label(t) + ": " + num(t) +
                " left pads and no position_ids: the model derives arange(T), so the first real token is at position " +
                num(t));
  else if (in.b.positionIds.at(in.r, t) != 0)
    in.emit("left-pad-positions", t,
            in.label(t) + ": " + num(t) + " left pads and the first real token has position id " +
                num(in.b.positionIds.at(in.r, t)) + " instead of 0");
}

void rightPadGeneration(const RowInput& in) {
  if (!in.o.generation || !in.L.rightPadded()) return;
  const int64_t t = in.L.endReal;
  in.emit("right-pad-generation", t,
          in.label(t) + ": " + num(in.T - t) + " pads after the prompt (position " + num(t) +
              " on); generation would continue from a pad");
}

void duplicateBos(const RowInput& in) {
  if (!in.b.bosTokenId) return;
  const int64_t bos = *in.b.bosTokenId;
  for (const ExampleRange& ex : in.L.examples) {
    if (ex.end - ex.begin < 2 || in.b.inputIds.at(in.r, ex.begin) != bos || in.b.inputIds.at(in.r, ex.begin + 1) != bos)
      continue;
    in.emit("duplicate-bos", ex.begin,
            in.label(ex.begin) + ": BOS (id " + num(bos) + ") twice at the start, positions " + num(ex.begin) +
                " and " + num(ex.begin + 1));
    return;
  }
}

} // namespace

const std::vector<LintRule>& positionRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info =
           {"position-ids-not-reset", S::Error, "packed examples continue position ids from the previous example",
            "Position ids tell rotary (or absolute) position embeddings where each token sits in its sequence. In a "
            "packed row each example should start again at position 0; when position ids run 0..T-1 across the whole "
            "row, the second example's first token is treated as if it were at position 700, so the model trains on "
            "position patterns it never sees at inference and FlashAttention's varlen path cannot find the example "
            "boundaries. Fix: emit position_ids that restart per example (DataCollatorWithFlattening, TRL "
            "padding_free, axolotl sample packing all do).",
            "batch (packed rows)"},
       .row = positionIdsNotReset},
      {.info =
           {"left-pad-positions", S::Warning, "left padding without position ids that skip the pads",
            "With left padding the real text starts after the pads. If position_ids are not given, or count the pads "
            "(0..T-1), the first real token gets a position such as 37 instead of 0. Rotary models are mostly "
            "insensitive to a shift of every position (attention depends on distances), but absolute-position models "
            "(GPT-2 style) and long rows are not, and the shift differs from row to row, so identical prompts train "
            "differently depending on their neighbours. transformers' generate() computes position_ids = "
            "attention_mask.cumsum(-1) - 1 for this reason. Fix: pass position_ids that skip the pads, or use right "
            "padding for training (tokenizer.padding_side = 'right').",
            "batch"},
       .row = leftPadPositions},
      {.info = {"right-pad-generation", S::Error, "a generation batch is right-padded",
                "For generation the model appends new tokens at the end of each row. With right padding the pads sit "
                "between the prompt and the new tokens, so the model continues from a pad token and outputs garbage; "
                "transformers warns 'A decoder-only architecture is being used, but right-padding was detected'. Fix: "
                "tokenizer.padding_side = 'left' before tokenizing prompts for generate() (keep right padding for "
                "training). Checked only when linting a generation batch (--generation).",
                "batch + --generation"},
       .row = rightPadGeneration},
      {.info =
           {"duplicate-bos", S::Warning, "BOS appears twice at a sequence start (template plus tokenizer)",
            "Many chat templates already start with the BOS token ({{ bos_token }}), and tokenizers add another one "
            "when called with add_special_tokens=True (the default of tokenizer(text)). The result, <s><s>..., is a "
            "sequence the model never saw in pre-training and slightly shifts everything after it. Fix: tokenize the "
            "rendered chat with add_special_tokens=False (apply_chat_template(tokenize=True) does this), or turn off "
            "the collator's add_bos.",
            "batch (BOS id)"},
       .row = duplicateBos},
  };
  return rules;
}

} // namespace maskscope
