// Label rules: labels aligned with input_ids (the model shifts them itself), rows and batches with
// something to grade. Conventions: labels[b][t] is the id to predict at t's input, -100 = ignored.
#include "core/lint/LintRegistry.h"

namespace maskscope {

namespace {

// labels-preshifted and label-not-input-id read the same comparison; one finding per row at most.
struct Alignment {
  int64_t graded = 0, same = 0, shifted = 0, mismatches = 0, firstMismatch = -1;
  bool preshifted() const { return graded >= 4 && shifted * 2 > graded && same * 2 < graded; }
};

Alignment alignmentOf(const RowInput& in) {
  Alignment a;
  for (int64_t t = 0; t < in.T; ++t) {
    if (!in.graded(t) || in.L.pad[size_t(t)]) continue;
    ++a.graded;
    const int64_t l = in.b.labels.at(in.r, t);
    const bool eq = l == in.b.inputIds.at(in.r, t);
    a.same += eq;
    a.shifted += t + 1 < in.T && l == in.b.inputIds.at(in.r, t + 1);
    if (!eq) {
      ++a.mismatches;
      if (a.firstMismatch < 0) a.firstMismatch = t;
    }
  }
  return a;
}

void labelsPreshifted(const RowInput& in) {
  const Alignment a = alignmentOf(in);
  if (!a.preshifted()) return;
  in.emit("labels-preshifted", a.firstMismatch,
          in.label(a.firstMismatch) + ": " + num(a.shifted) + " of " + num(a.graded) +
              " graded labels equal the next position's input id (labels[t] == input_ids[t+1]); only " + num(a.same) +
              " equal their own" +
              (in.b.framework ? std::string()
                              : " (a torchtune dump? its labels are pre-shifted: read it with a torchtune spec)"));
}

void labelNotInputId(const RowInput& in) {
  const Alignment a = alignmentOf(in);
  if (a.preshifted() || a.mismatches == 0) return;
  const int64_t t = a.firstMismatch;
  in.emit("label-not-input-id", t,
          in.label(t) + ": " + num(a.mismatches) + " of " + num(a.graded) +
              " graded labels differ from the input id at their position (first at position " + num(t) + ": label " +
              num(in.b.labels.at(in.r, t)) + ", input " + num(in.b.inputIds.at(in.r, t)) + ")");
}

void noGradedTokens(const RowInput& in) {
  if (in.o.generation) return; // a generation batch (prompts for generate()) grades nothing by design
  for (const ExampleRange& ex : in.L.examples) {
    const auto [graded, real] = in.gradedAndReal(ex);
    if (graded > 0) continue;
    // One numbering per finding: a dump's row and its positions, or a dataset row and the rows it
    // was packed with (a micro-batch's row index means nothing to the dataset).
    std::string what = in.label(ex.begin);
    if (in.L.packed() && !in.o.datasetPositions) {
      what += " (packed example at positions " + num(ex.begin) + ".." + num(ex.end - 1) + ")";
    } else if (in.L.packed()) {
      // File lines where the rows' locations are known (the numbering the finding opens with).
      std::string rows;
      for (const ExampleRange& e : in.L.examples)
        if (e.sourceRow >= 0)
          rows += (rows.empty() ? "" : ", ") + (in.o.locations ? in.o.locations->label(e.sourceRow) : num(e.sourceRow));
      if (!rows.empty()) what += (in.o.locations ? " (packed with " : " (packed with dataset rows ") + rows + ")";
    }
    in.emit("no-graded-tokens", ex.begin, what + ": all " + num(real) + " labels are -100");
  }
}

void batchNothingGraded(const BatchInput& in) {
  const Batch& b = in.batch;
  // A generation batch (--generation: prompts for generate()) grades nothing by design: no loss is taken.
  if (b.batchSize() == 0 || in.gradedLabels > 0 || in.options.generation) return;
  const BatchRuleOptions& o = in.options;
  if (o.datasetPositions) {
    const RowLocation* first = o.locations ? o.locations->find(o.firstDatasetRow) : nullptr;
    const RowLocation* last = o.locations ? o.locations->find(o.lastDatasetRow) : nullptr;
    const std::string rows = first && last && first->line >= 0 && last->line >= 0
                                 ? "lines " + num(first->line) + ".." + num(last->line)
                                 : "rows " + num(o.firstDatasetRow) + ".." + num(o.lastDatasetRow);
    Finding f = makeFinding("batch-nothing-graded", o.firstDatasetRow, std::nullopt,
                            "the micro-batch of " + rows + " has no graded position: its mean loss is 0/0 (NaN)");
    if (first) locate(f, *first);
    in.out.add(std::move(f));
  } else
    in.out.add("batch-nothing-graded", std::nullopt, std::nullopt,
               "all " + num(b.batchSize() * b.length()) + " labels of the batch are -100: the mean loss is 0/0 (NaN)");
}

} // namespace

const std::vector<LintRule>& labelRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info =
           {"labels-preshifted", S::Error, "labels are already shifted by one (the model shifts again)",
            "In transformers the causal-LM model shifts labels itself: logits at position t are compared with "
            "labels[t + 1]. So labels must be aligned with input_ids (labels[t] == input_ids[t] or -100). If the "
            "collator already shifted them (labels[t] == input_ids[t + 1], as in a hand-written GPT training loop) "
            "they are shifted twice and the model is trained to predict the token two steps ahead: the loss stays "
            "high and generations come out garbled. Fix: pass labels = input_ids (masked with -100) and let the model "
            "shift. torchtune (0.7 and later) writes its labels pre-shifted on purpose, because its own loss does not "
            "shift: a torchtune dump read as a Hugging Face batch shows exactly this pattern; read it with "
            "--collator '{\"framework\": \"torchtune\"}' so maskscope shifts the labels back.",
            "batch"},
       .row = labelsPreshifted},
      {.info =
           {"label-not-input-id", S::Warning, "graded labels differ from the input id at their position",
            "In the transformers convention a graded label is the input id at the same position (the model shifts). "
            "Labels that are neither -100, nor that id, nor a one-step shift of it, mean labels and input_ids come "
            "from different tokenizations (for example the reply tokenized separately from the prompt), so the model "
            "is graded on tokens that are not in its input. Fix: build labels from the same input_ids tensor.",
            "batch"},
       .row = labelNotInputId},
      {.info =
           {"no-graded-tokens", S::Warning, "a row has every label -100",
            "A row (or packed example) whose labels are all -100 adds nothing to the loss but still costs a forward "
            "and backward pass, and it changes how a batch mean is weighted. It usually means truncation removed the "
            "reply (the prompt alone is longer than max_length), the response template was not found "
            "(DataCollatorForCompletionOnlyLM warns 'Could not find response key'), or the conversation has no "
            "assistant turn. Fix: raise max_length, truncate from the left, or drop such rows before training. Not "
            "reported for a generation batch (--generation), whose prompts grade nothing by design.",
            "batch", Scope::Data},
       .row = noGradedTokens},
      {.info =
           {"batch-nothing-graded", S::Error, "a whole (micro-)batch has no graded position",
            "When every label of a batch is -100 the mean cross-entropy is 0/0: transformers returns a NaN loss and "
            "the NaN gradient can poison the optimizer state. It happens with a short dataset of prompt-only rows, "
            "with "
            "aggressive truncation, or when a masking collator never finds the reply. Fix: drop rows with no graded "
            "token before batching (see no-graded-tokens). Not reported for a generation batch (--generation): "
            "prompts for generate() grade nothing by design, and no loss is taken on them.",
            "batch"},
       .afterRows = batchNothingGraded},
  };
  return rules;
}

} // namespace maskscope
