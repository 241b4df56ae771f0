// `maskscope train-ab`: trains one model twice from the same weights on the same conversations, once
// with each of two collators (an experiment preset or --collator-a/--collator-b), and reports what the
// difference does. The planning and the report live in core/train; this is the command around them.
#pragma once
#include "core/commands/CommandIO.h"
#include "core/train/TrainPlan.h"

namespace maskscope {

// Plans, trains, and prints the report (JSON with io.json). Exit 0; 2 on unusable input.
int runTrainAB(const TrainArgs& args, CommandIO& io);

} // namespace maskscope
