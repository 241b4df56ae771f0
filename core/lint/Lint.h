// The linter's entry points: lint one Batch (the app's current batch, or a dump) and lint a whole
// dataset streamed through a tokenizer, template and collator. Rules: see LintRegistry.h.
#pragma once
#include "core/collate/CollatorSpec.h"
#include "core/collate/DatasetPipeline.h"
#include "core/lint/LintReport.h"
#include "core/template/ChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

#include <functional>
#include <memory>
#include <optional>

namespace maskscope {

struct LintContext {
  std::shared_ptr<const Tokenizer> tokenizer;       // optional: vocabulary size, special ids, roles
  std::shared_ptr<const ChatTemplate> chatTemplate; // optional: roles of a dump, template checks
  RenderOptions render;                             // template variables (bos_token, ...)
  std::optional<CollatorSpec> collator;             // the collator that built the batch, when known
  bool generation = false;                          // a generation batch (right-pad-generation)
  long maxFindings = -1;                            // -1: keep every finding
  std::function<void(const Finding&)> findingSink;  // sees every finding, none capped (lint --findings-out)
};

// Lints one batch. When batch.meta is empty and both tokenizer and template are given, roles are
// recovered from the ids first; without them the role-aware rules are listed in rules_not_run.
LintReport lintBatch(const Batch& batch, const LintContext& context = {});

struct DatasetLintOptions {
  PipelineSpec pipeline;  // tokenizer, template, collator
  int microBatchSize = 8; // rows collated and linted together (and the grad-accum unit)
  int threads = 0;        // worker threads; 0 = hardware concurrency
  bool generation = false;
  long maxFindings = 1000;                                  // -1: all
  int shardIndex = 0, shardCount = 1;                       // lint rows with index % shardCount == shardIndex
  int prefixCheckRows = 16;                                 // rows that also get the render-prefix checks (costly)
  long rowBegin = 0, rowEnd = -1;                           // --rows A:B: dataset rows linted (-1: to the end)
  std::function<void(double fraction, long rows)> progress; // called from the reading thread
  // Sees every finding (none capped) in report order, as it is added (lint --findings-out).
  std::function<void(const Finding&)> findingSink;
};

// Streams the dataset (constant memory), lints every micro-batch on worker threads and reduces the
// results in dataset order. Throws Error when the dataset or pipeline cannot be loaded at all.
LintReport lintDataset(const std::string& dataSpec, const DatasetLintOptions& options);

// Preference data (prompt/chosen/rejected, core/data/PreferenceRow.h): the preference rules on each
// pair and every batch rule on the chosen and the rejected sequences of each micro-batch (findings
// name the side). summary.rows counts pairs; lengths and graded counts cover both sequences.
LintReport lintPreferenceDataset(const std::string& dataSpec, const DatasetLintOptions& options);

} // namespace maskscope
