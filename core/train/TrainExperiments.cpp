// The table of train-ab experiments (see TrainExperiments.h).
#include "core/train/TrainExperiments.h"
#include "core/util/Error.h"

namespace maskscope {

const std::vector<TrainExperiment>& trainExperiments() {
  static const std::vector<TrainExperiment> list = {
      {"stop-token", "buggy-pad-is-eos", "hf-lm", false, false, 0,
       "pad_token = eos_token masks every end-of-turn token, so run A never learns to stop: after a true "
       "reply it gives the end-of-turn token almost no probability (end_of_turn_nll) and its generations run "
       "to the length limit, while run B learns to end its replies",
       TrainOutcome::EndOfTurn, 1e-3},
      {"pad-graded", "buggy-max-length-all-ones", "default", false, false, 0,
       "run A grades and attends padding: its training loss falls fast on easy pad targets (see the pad "
       "loss share) while its held-out loss on real replies lags run B's",
       TrainOutcome::HeldOutLossGap, 1e-4},
      {"prompt-graded", "hf-seq2seq-style", "default", false, false, 0,
       "run A also learns the prompts (prompt loss share), so less of its gradient goes to replies: "
       "compare the held-out reply loss"},
      {"packing", "buggy-no-position-reset", "axolotl-packed", false, false, 0,
       "run A packs examples with positions counting on and attention across examples; run B resets "
       "positions and keeps attention inside each example: score the held-out replies packed as each run "
       "packs them and alone (held_out_as_trained_loss): only run A's differ, each example sees the ones "
       "before it",
       TrainOutcome::PackingLeak},
      // One conversation per micro-batch (measured on seeds 0-4: gap 0.256 with spread 0.022; two per
      // micro-batch averaged the lengths out: 0.113 with spread 0.028).
      {"grad-accum", "default", "default", true, false, 1,
       "the same collator; run A averages each micro-batch's mean (one conversation per micro-batch: a "
       "token of a short reply weighs more), run B divides the step's summed loss by all its graded tokens: "
       "run A's accumulated loss is not the loss of the batch it was given (compare train_loss with "
       "full_batch_loss)",
       TrainOutcome::AccumulationGap},
  };
  return list;
}

const TrainExperiment& findTrainExperiment(const std::string& name) {
  std::string names;
  for (const TrainExperiment& e : trainExperiments()) {
    if (e.name == name) return e;
    names += (names.empty() ? "" : ", ") + e.name;
  }
  throw Error("unknown experiment \"" + name + "\" (experiments: " + names + ")", {"--experiment"});
}

} // namespace maskscope
