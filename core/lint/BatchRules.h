// Runs the rules that read one collated batch (shapes, ranges, padding, labels, packing, positions,
// BOS, and with position metadata the role-aware rules; see LintRegistry.h). Used by lintBatch()
// for the app and dumps, and per micro-batch by the dataset linter.
#pragma once
#include "core/collate/CollatorSpec.h"
#include "core/data/Batch.h"
#include "core/lint/LintReport.h"
#include "core/lint/ReplyJoins.h"
#include "core/lint/RowLocation.h"

#include <functional>
#include <optional>

namespace maskscope {

// What the collator was meant to grade, when known (decides prompt-graded vs full-sequence-labels).
enum class LabelIntent { Unknown, RepliesOnly, LastReplyOnly, FullSequence };

struct BatchRuleOptions {
  bool generation = false;          // a generation batch: right-pad-generation applies
  std::optional<int64_t> vocabSize; // from the tokenizer; else the largest input id bounds labels
  LabelIntent intent = LabelIntent::Unknown;
  bool rolesKnown = false; // batch.meta holds roles (collated, or recovered from a dump)
  // Maps a (batch row, position) to what a finding reports: for datasets, the dataset row and the
  // position inside its example. Identity when empty.
  bool datasetPositions = false;
  long firstDatasetRow = -1, lastDatasetRow = -1; // a dataset micro-batch's rows (batch-nothing-graded)
  const RowLocations* locations = nullptr;        // where those rows are in the file (findings name the line)
  std::string attnImplementation; // --attn-implementation (eager, sdpa, ...); empty: what the batch implies
  bool collatorPacks = false;     // the collator given (--collator) packs examples into rows
  const std::vector<RowJoins>* rowJoins = nullptr; // a dump read with its template (readDump); null: unknown
  // A run of batches (BatchRunLinter.h): framework-pad-is-eos adds its batch's count here and states the
  // run's total so far. Null: the batch alone.
  int64_t* eosUngradedInRun = nullptr;
};

LabelIntent labelIntentOf(const CollatorSpec& spec);
// The one info finding that stands for every full-sequence row (rather than one per row).
void addFullSequenceInfo(FindingCollector& out, long rows);

// Runs every batch rule of the registry (LintRegistry.h) and adds the batch's statistics to the
// summary (counts from core/mask's rowFacts, so they equal the loss breakdown's); returns false
// when the batch is unusable for further rules (shape mismatch). Full-sequence rows are counted in
// fullSequenceRows (one info finding is given by the caller).
bool runBatchRules(const Batch& batch, const BatchRuleOptions& options, FindingCollector& out, LintSummary& summary,
                   long* fullSequenceRows = nullptr);

} // namespace maskscope
