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
  // The default peak learning rate: for the loss experiments low enough that run B's held-out loss at
  // the last evaluation is below its first (on builtin:tiny it bottoms out a little before the end);
  // higher for stop-token, whose outcome is a behaviour that needs the end-of-turn token learnt within
  // the steps (its held-out loss can rise meanwhile: the verdict reads stop_fraction only).
  double learningRate = 3e-4;
};

const std::vector<TrainExperiment>& trainExperiments();

// The experiment called name; throws maskscope::Error naming --experiment and the list otherwise.
const TrainExperiment& findTrainExperiment(const std::string& name);

} // namespace maskscope
