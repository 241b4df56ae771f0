// One framework run from the command line's inputs: read the rows, prepare them, collate them, and
// convert the framework's batch to maskscope's Batch. collate, lint, loss, snapshot and the app go
// through it whenever --collator names a framework spec.
#pragma once
#include "core/data/Batch.h"
#include "core/data/DatasetReader.h"
#include "core/frameworks/Framework.h"
#include "core/frameworks/PreparedFramework.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

struct FrameworkInputs {
  std::string dataSpec;      // --data
  std::string collatorSpec;  // --collator (a framework spec)
  std::string tokenizerSpec; // --tokenizer; empty: none (pre-tokenized rows only)
  std::string templateSpec;  // --template; empty: the tokenizer's own
  long rowBegin = 0, rowEnd = -1;
  std::vector<std::pair<std::string, std::string>> vars; // --var
  int64_t minPixels = 0, maxPixels = 0;                  // --min-pixels / --max-pixels (0: the processor's)
  bool lenient = false; // lint/app: record what the framework would stop on instead of throwing
};

// Throws Error (exit 2) on unusable input, naming the file, row and key.
FrameworkRun runFramework(const FrameworkInputs& inputs);
// Only the spec, the rows and the preparation (no collation): `collate --stage prepared`.
FrameworkRun prepareFramework(const FrameworkInputs& inputs);
// The spec, its rows read (run.spec, run.skipped, run.tokenizer), and the framework set up with
// --tokenizer and --template and prepared, ready to collate any range of its rows (lint's batches).
std::unique_ptr<PreparedFramework> prepareFrameworkInputs(const FrameworkInputs& inputs, FrameworkRun& run);

// The chat template to load for spec: its chat_template_path (TRL's SFTConfig) as --template would
// name it, else templateSpec. Error when both are given and differ (neither silently wins).
// The chat template lint judges a framework's batch by: the one the framework chose itself
// (Axolotl's chat_template), none for a template in the framework's own format (LLaMA-Factory's),
// else the tokenizer's own (tokenizerOwn, whose special-token variables the chosen one keeps).
std::shared_ptr<const ChatTemplate> templateJudged(const FrameworkFacts& facts,
                                                   std::shared_ptr<const ChatTemplate> tokenizerOwn);

std::string frameworkTemplateSpec(const FrameworkSpec& spec, const std::string& templateSpec);

// The text form's header: which framework, version, collator and options built the batch.
std::string describeFrameworkRun(const FrameworkRun& run);

} // namespace maskscope
