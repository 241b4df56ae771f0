// `collate` on preference data (prompt/chosen/rejected): the chosen and rejected sequences as TRL's
// DPOTrainer builds them (docs/cli.md, "Preference data"). runCollate calls it for such datasets.
#pragma once
#include "core/commands/CollateCommand.h"

namespace maskscope {

int runPreferenceCollate(const BatchInputs& inputs, CommandIO& io, const CollateTableOptions& options);

} // namespace maskscope
