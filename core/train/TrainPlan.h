// What train-ab trains on, planned before any training: the held-out split of the conversations, the
// same shuffled batches collated by each run's collator, the held-out batches (always under correct
// masks) and the generation prompts. The command line and the app's Training lab both plan here.
#pragma once
#include "core/forward/ForwardEngine.h"
#include "core/train/TrainVerdict.h"

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace maskscope {

class DatasetPipeline;

struct TrainArgs {
  std::string experiment = "stop-token";
  std::string collatorA, collatorB; // override the experiment's (both or neither)
  std::string modelSpec = "builtin:tiny";
  std::string dataSpec = "builtin:demo";
  std::string tokenizerSpec = "builtin:demo";
  std::string templateSpec;
  std::string init = "pretrained"; // or "random": the model's architecture with fresh seeded weights
  int64_t steps = 0;               // 0 = the default for the experiment (kDefaultTrainSteps)
  int64_t batchSize = 8;
  int64_t microBatch = 0;  // 0 = the experiment's
  double learningRate = 0; // 0 = the experiment's (TrainExperiment::learningRate)
  int64_t warmup = 10;
  std::string schedule = "cosine";
  uint64_t seed = 0;
  int64_t evalEvery = 10;
  int64_t maxNewTokens = 64;
  int64_t heldOutEvery = 8; // every 8th conversation (index % 8 == 7) is held out
  int threads = 1;
  std::string device = "cpu";
};

inline constexpr int64_t kDefaultTrainSteps = 60;

// The held-out split: conversation i is held out when i % every == every - 1.
bool isHeldOut(size_t index, int64_t every);

// Everything train-ab builds before training: the module's request and what the report quotes.
struct TrainABPlan {
  TrainArgs args;
  std::string experiment, lookFor;           // "custom" when the collators were given by hand
  std::string collator[2];                   // run A, run B
  TrainOutcome outcome = TrainOutcome::None; // the experiment's prediction; None for a hand-picked pair
  TrainRequest request;
  size_t trainConversations = 0, heldOutConversations = 0;
  std::vector<long> generationRows;          // dataset row of each generation prompt
  std::shared_ptr<DatasetPipeline> pipeline; // its tokenizer decodes the generations
};

// Reads the data, splits it, collates every step of both runs. Skipped rows are reported on err.
// Throws maskscope::Error on unusable input.
TrainABPlan planTrainAB(const TrainArgs& args, std::ostream& err);

} // namespace maskscope
