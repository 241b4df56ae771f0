// `maskscope collate`: the batch a collator builds from dataset rows, as JSON (docs/cli.md).
#pragma once
#include "core/commands/BatchInputs.h"
#include "core/commands/CommandIO.h"

namespace maskscope {

// Needs --tokenizer and --data (--template and --collator have defaults).
int runCollate(const BatchInputs& inputs, CommandIO& io);
// `collate --list-presets`: every collator preset with its one-line meaning (JSON list with --json).
int listCollatorPresets(CommandIO& io);
// Parses "A:B", "A:", ":B" or "N" into a half-open row range; throws Error.
void parseRowRange(const std::string& text, long& begin, long& end);

} // namespace maskscope
