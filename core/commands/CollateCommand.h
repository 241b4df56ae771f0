// `maskscope collate`: the batch a collator builds from dataset rows, as contract JSON.
#pragma once
#include "core/commands/BatchInputs.h"
#include "core/commands/CommandIO.h"

namespace maskscope {

int runCollate(const BatchInputs& inputs, CommandIO& io);
// Parses "A:B", "A:", ":B" or "N" into a half-open row range; throws Error.
void parseRowRange(const std::string& text, long& begin, long& end);

} // namespace maskscope
