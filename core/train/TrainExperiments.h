// The train-ab experiments: for each, the two collators (run A shows the bug, run B is correct) and
// the lesson to look for. The table is shared by the command line and the app's Training lab.
#pragma once
#include <string>
#include <vector>

namespace maskscope {

struct TrainExperiment {
  std::string name;
  std::string collatorA, collatorB;
  bool perMicroBatchMeanA = false, perMicroBatchMeanB = false; // the gradient-accumulation bug
  int microBatch = 0;                                          // rows per micro-batch; 0 = the whole batch in one
  std::string lookFor;
};

const std::vector<TrainExperiment>& trainExperiments();

// The experiment called name; throws maskscope::Error naming --experiment and the list otherwise.
const TrainExperiment& findTrainExperiment(const std::string& name);

} // namespace maskscope
