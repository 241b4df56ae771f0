// `maskscope collate`: the batch a collator builds from dataset rows, as JSON (docs/cli.md).
#pragma once
#include "core/commands/BatchInputs.h"
#include "core/commands/CommandIO.h"

#include <cstdint>
#include <string>

namespace maskscope {

// --table: the per-position table of each row instead of the batch (docs/cli.md, "collate --table").
struct CollateTableOptions {
  bool enabled = false;
  std::string hide;            // --hide system,whitespace,padding
  std::string format = "text"; // --table-format text|markdown|csv|html (--json wins)
  std::string side;            // --side chosen|rejected|both (preference data only; empty = both)
  std::string stage;           // --stage batch|prepared (framework specs only; empty = batch)
  bool mlm = false;            // --mlm: the BERT aside instead of the batch (core/commands/MaskedLmCollate.h)
  uint64_t seed = 0;           // --seed N: which positions --mlm draws
};

// Needs --tokenizer and --data (--template and --collator have defaults).
int runCollate(const BatchInputs& inputs, CommandIO& io, const CollateTableOptions& table = {});
// `collate --list-presets`: every collator preset with its one-line meaning (JSON list with --json).
int listCollatorPresets(CommandIO& io);
// collate with a framework spec (core/frameworks): the framework's own dict, or its prepared rows.
int runFrameworkCollate(const BatchInputs& inputs, CommandIO& io, const CollateTableOptions& options);
// Prints the rows the reader skipped, the framework's warnings and the rows it dropped on err.
struct FrameworkRun;
void reportFrameworkNotes(const FrameworkRun& run, CommandIO& io);
// Parses "A:B", "A:", ":B" or "N" into a half-open row range; throws Error.
void parseRowRange(const std::string& text, long& begin, long& end);

} // namespace maskscope
