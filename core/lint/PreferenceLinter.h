// lintPreferenceDataset(): preference data (prompt/chosen/rejected, core/data/PreferenceRow.h) linted
// pair by pair, with the batch rules run on each side's micro-batches.
#pragma once
#include "core/lint/DatasetLinter.h"

namespace maskscope {

// The preference rules on each pair and every batch rule on the chosen and the rejected sequences of
// each micro-batch (findings name the side). summary.rows counts pairs; lengths and graded counts
// cover both sequences. A sharded run (shardCount != 1) is refused: preference data is linted whole.
LintReport lintPreferenceDataset(const std::string& dataSpec, const DatasetLintOptions& options);

} // namespace maskscope
