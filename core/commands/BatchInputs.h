// The inputs from which a command builds a batch: either a dump (--batch FILE) or a dataset
// rendered, tokenized and collated (--data, --tokenizer, --template, --collator, --rows).
#pragma once
#include "core/data/Batch.h"
#include "core/data/DatasetReader.h"

#include <memory>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

class Tokenizer;
struct FrameworkInputs;

struct BatchInputs {
  std::string batchFile;     // --batch: JSON/JSONL/.safetensors/.pt dump; empty when building from data
  std::string dataSpec;      // --data FILE or builtin:demo
  std::string tokenizerSpec; // --tokenizer
  std::string templateSpec;  // --template (empty: the tokenizer's own)
  std::string collatorSpec = "default";
  long rowBegin = 0;                                     // --rows A:B, half-open
  long rowEnd = -1;                                      // -1: to the end
  std::vector<std::pair<std::string, std::string>> vars; // --var k=v: template variables
  int64_t minPixels = 0, maxPixels = 0; // --min-pixels / --max-pixels: the processor's (0: its default)
  // Framework specs: record what the framework would stop on (TRL's RuntimeError on a template
  // without {% generation %}) instead of stopping (lint, the app).
  bool lenientFramework = false;
};

// Loads or builds the batch. Throws Error on unusable input. A dump given with --tokenizer is read as
// lint reads it (core/lint/Lint.h's readDump: special-token ids, roles, packing boundaries).
// rowErrors, when given, receives the dataset rows that were skipped.
// tokenizerOut, when given, receives the tokenizer the batch was encoded with (for dumps: the
// --tokenizer one when given, else null). notes, when given, receives what the reader noticed: a
// --tokenizer that does not fit the dump's ids (core/lint/TokenizerFit.h) and the cached ones that do.
Batch buildBatch(const BatchInputs& inputs, std::vector<RowError>* rowErrors = nullptr,
                 std::shared_ptr<const Tokenizer>* tokenizerOut = nullptr, std::vector<std::string>* notes = nullptr);

// The framework run's inputs from the command's (core/frameworks/FrameworkPipeline.h), lenient or not.
FrameworkInputs frameworkInputsOf(const BatchInputs& inputs, bool lenient);

} // namespace maskscope
