// The report of a train-ab run: the JSON `train-ab --json` prints and the Training lab exports (one
// writer, one schema), built from the plan and the module's TrainReport.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <nlohmann/json.hpp>

namespace maskscope {

struct TrainABPlan;

nlohmann::json trainReportJson(const TrainABPlan& plan, const TrainReport& report);

// Share of a run's held-out generations that ended with the end-of-turn token (NaN when none ran).
double stopFraction(const TrainRunResult& run);

} // namespace maskscope
