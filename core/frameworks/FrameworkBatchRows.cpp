// Batch rows from a framework spec: the trainer's batch as lint's batches take it (TrainerBatches.cpp).
#include "core/frameworks/FrameworkBatchRows.h"
#include "core/frameworks/TrainerBatches.h"
#include "core/util/Error.h"

#include <cstdint>

namespace maskscope {

std::optional<FrameworkBatchRows> frameworkBatchRows(const FrameworkSpec& spec) {
  try {
    const TrainerBatchSize t = trainerBatchSize(spec);
    if (t.rows == SIZE_MAX) return std::nullopt; // sample_packing: the bins of the first step
    return FrameworkBatchRows{int64_t(t.rows), t.why};
  } catch (const Error&) { // the spec's own check names the value
    return std::nullopt;
  }
}

} // namespace maskscope
