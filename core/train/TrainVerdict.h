// Whether a train-ab run showed the effect its experiment predicts: each experiment names one outcome
// of training (held-out loss under correct masks, or how often the generations stop) and which way
// run A (the bug) and run B (correct) should differ. The verdict is computed from the two runs and
// says plainly, with the numbers, when the effect did not appear.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace maskscope {

struct TrainABPlan;

// What an experiment predicts (TrainExperiment::outcome).
enum class TrainOutcome {
  None,            // a hand-picked pair: no prediction
  EndOfTurn,       // after the true held-out replies run A's end-of-turn token costs at least kEndOfTurnGap
                   // nats more than run B's (teacher-forced): run A never learnt to end a reply
  HeldOutLossGap,  // run A's final held-out loss is higher than run B's, and run B's fell from first to last
  AccumulationGap, // run A's accumulated step loss differs from its full-batch loss by at least
                   // kAccumulationGap on average, run B's by less than kAccumulationTolerance
  PackingLeak,     // the held-out replies packed as run A trains score at least kPackingLeak away from the same
                   // replies alone; as run B packs them, less than kLayoutTolerance away
};

struct TrainVerdict {
  std::string metric;   // "end_of_turn_nll", "final_held_out_loss", "accumulation_gap" or "packing_leak"
  double a = 0, b = 0;  // the metric for run A and run B
  std::string expected; // the prediction, in words
  bool observed = false;
  std::string text; // the sentence the Training lab shows
};

// Every run's mean over its steps of |trainLoss - fullBatchLoss|: how far its accumulated loss (what it
// optimises) is from the loss of the same step taken as one full batch. NaN without steps.
double accumulationGap(const TrainRunResult& run);

// |heldOutAsTrainedLoss - the final held-out loss|: how far the run's own layout moves the loss of the
// held-out replies from their loss alone. NaN when either is missing.
double packingLeak(const TrainRunResult& run);

// The share of the held-out replies after which the run's teacher-forced argmax is the reply's closing
// token (the last token of each reference): given the true reply, the model's first choice is to end
// it. What learning to stop means, measured without the generation's own drift. NaN without references.
double closesReplyShare(const TrainRunResult& run, const std::vector<std::vector<int64_t>>& references);

// The mean over the held-out replies of -ln p(the closing token | prompt + the true reply), teacher-forced:
// what the model pays for ending each reply where it ends (lower = it has learnt to stop). NaN without
// references or log-probabilities.
double endOfTurnNll(const TrainRunResult& run, const std::vector<std::vector<int64_t>>& references);

// The verdict of a finished pair of runs; nullopt for a hand-picked pair (no prediction). references
// are the held-out replies (GenerationPlan::references) the end-of-turn verdict reads.
std::optional<TrainVerdict> trainVerdict(TrainOutcome outcome, const TrainReport& report,
                                         const std::vector<std::vector<int64_t>>& references = {});

nlohmann::json trainVerdictJson(const std::optional<TrainVerdict>& verdict);

} // namespace maskscope
