// `maskscope lint INPUT`: names every masking bug of a dataset (through tokenizer, template and
// collator) or a batch dump, as JSON (docs/cli.md) or a terminal report with a coloured token view.
#pragma once
#include "core/commands/CommandIO.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

struct LintArgs {
  std::string input;              // dataset file, builtin:demo, or batch dump (.json/.jsonl/.safetensors/.pt)
  std::string tokenizerSpec;      // --tokenizer (datasets: default builtin:demo)
  std::string templateSpec;       // --template (default: the tokenizer's own)
  std::string collatorSpec;       // --collator (datasets: default "default"; dumps: states the intent)
  std::string modelSpec;          // --model: a model folder gives the tokenizer
  bool generation = false;        // --generation: the input is a generation batch
  long maxFindings = -1;          // --max-findings N (default 1000; text output shows 50)
  std::string findingsOut;        // --findings-out FILE (.tsv/.csv/.jsonl): every finding, streamed
  std::string reportPath;         // --report FILE.html: the audit report (datasets, unsharded)
  std::string shard;              // --shard K/N: micro-batches with index % N == K (JSON: a shard report)
  std::vector<std::string> merge; // --merge SHARD.json...: merge shard reports (INPUT not needed)
  int microBatch = 8;             // --micro-batch N
  int threads = 0;                // --threads N (0: all cores)
  std::string explain;            // --explain RULE ("all": every rule); INPUT not needed
  bool listRules = false;         // --list-rules
  bool progress = false;          // --progress: progress on stderr even when it is not a terminal
  int showRows = 3;               // --show-rows N: offending rows drawn as tokens in the text report
  std::optional<int64_t> padId;   // --pad-id N (dumps): the pad id, over the dump's pad_token_id
  std::string failOn = "error";   // --fail-on error|warning: the least severity that makes the exit status 1
  std::vector<std::pair<std::string, std::string>> vars; // --var k=v: template variables
  long rowBegin = 0, rowEnd = -1; // --rows A:B (datasets): the half-open range of rows linted; -1 = to the end
  std::string attnImplementation; // --attn-implementation eager|sdpa|flash_attention_2|flex_attention (empty: implied)
  int64_t minPixels = 0, maxPixels = 0; // --min-pixels / --max-pixels (datasets): the processor's (0: its default)
};

int runLint(const LintArgs& args, CommandIO& io);
// A capture folder (docs/capture.md): each batch linted as runLint lints a batch file, with the
// tokenizer, template and pad id of the manifest where args gives none (LintCapture.cpp).
int runLintCapture(const LintArgs& args, CommandIO& io);

} // namespace maskscope
