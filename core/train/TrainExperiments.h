// The train-ab experiments: for each, the two collators (run A shows the bug, run B is correct) and
// the lesson to look for. The table is shared by the command line and the app's Training lab.
#pragma once
#include "core/train/TrainVerdict.h"

#include <string>
#include <vector>

namespace maskscope {

struct TrainExperiment {
  std::string name;
  std::string collatorA, collatorB;
  bool perMicroBatchMeanA = false, perMicroBatchMeanB = false; // the gradient-accumulation bug
  int microBatch = 0;                                          // rows per micro-batch; 0 = the whole batch in one
  std::string lookFor;
  TrainOutcome outcome = TrainOutcome::HeldOutLossGap; // what training should show (TrainVerdict)
  // The default peak learning rate, chosen from measured runs on builtin:tiny (seeds 0-2, the table in
  // docs/cli.md): low enough that run B's held-out loss at the last evaluation is below its first, and
  // where the effect is a learning-speed gap, low enough that run B is still learning at the end (the
  // gap closes once both runs reach the floor of what 55 conversations teach).
  double learningRate = 3e-4;
};

const std::vector<TrainExperiment>& trainExperiments();

// The experiment called name; throws maskscope::Error naming --experiment and the list otherwise.
const TrainExperiment& findTrainExperiment(const std::string& name);

} // namespace maskscope
