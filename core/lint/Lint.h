// The linter's entry points: lint one Batch (the app's current batch, or a dump) and lint a whole
// dataset streamed through a tokenizer, template and collator. Rules: see LintRegistry.h.
#pragma once
#include "core/collate/CollatorSpec.h"
#include "core/collate/DatasetPipeline.h"
#include "core/lint/LintReport.h"
#include "core/lint/RoleRecovery.h"
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
};

// A batch dump read with its tokenizer and template as lint reads it, so the app's views and the loss
// can show what lint sees: missing pad/EOS/BOS ids become the tokenizer's (TemplateVariables.h),
// then, when the batch has no collator metadata, roles, conversation starts and the template's turn
// joins are recovered from the ids (RoleRecovery.h). context.render must hold the variables
// (templateVariables). markers: learnt from the template (unusable without one).
struct DumpReading {
  RoleMarkers markers;
  bool rolesRecovered = false;
};
DumpReading readDump(Batch& batch, const LintContext& context);

// Lints one batch, read first with readDump; without a tokenizer and template the role-aware rules
// are listed in rules_not_run.
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
};

// Streams the dataset (constant memory), lints every micro-batch on worker threads and reduces the
// results in dataset order. Throws Error when the dataset or pipeline cannot be loaded at all.
LintReport lintDataset(const std::string& dataSpec, const DatasetLintOptions& options);
// The same through a pipeline already loaded (options.pipeline is not read): the app's, or one per
// collator sharing a tokenizer (DatasetPipeline's sharing constructor).
LintReport lintDataset(const std::string& dataSpec, const DatasetLintOptions& options, const DatasetPipeline& pipeline);

// Preference data (prompt/chosen/rejected, core/data/PreferenceRow.h): the preference rules on each
// pair and every batch rule on the chosen and the rejected sequences of each micro-batch (findings
// name the side). summary.rows counts pairs; lengths and graded counts cover both sequences.
LintReport lintPreferenceDataset(const std::string& dataSpec, const DatasetLintOptions& options);

} // namespace maskscope
