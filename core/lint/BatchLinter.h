// lintBatch(): lint one Batch (the app's current batch, or a dump), with the tokenizer, template and
// collator that made it when known. Rules: see LintRegistry.h.
#pragma once
#include "core/collate/CollatorSpec.h"
#include "core/data/Batch.h"
#include "core/lint/BatchRules.h"
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
  std::string attnImplementation;                   // --attn-implementation; empty: what the batch implies
  long maxFindings = -1;                            // -1: keep every finding
  std::function<void(const Finding&)> findingSink;  // sees every finding, none capped (lint --findings-out)
};

// A batch dump read with its tokenizer and template as lint reads it, so the app's views and the loss
// can show what lint sees: missing pad/EOS/BOS ids become the tokenizer's (TemplateVariables.h),
// then, when the batch has no collator metadata, roles, conversation starts and the template's turn
// joins are recovered from the ids (RoleRecovery.h). context.render must hold the variables
// (templateVariables). markers: learnt from the template (unusable without one).
struct DumpReading {
  RoleMarkers markers;
  bool rolesRecovered = false;
  std::vector<RowJoins> rowJoins; // per row, when roles were recovered (ReplyJoins.h)
};
// learnt: markers learnt earlier with the same context (a run of batches learns them once).
DumpReading readDump(Batch& batch, const LintContext& context, const RoleMarkers* learnt = nullptr);
// What lintBatch checks once per input before the batch rules: the template checks and the notes
// naming rules that cannot run (roles unknown, no pad id); rules_not_run goes into summary.
void runOnceChecks(const Batch& batch, const LintContext& context, const DumpReading& read, FindingCollector& out,
                   LintSummary& summary);
// The batch rules' options for a batch read with readDump.
BatchRuleOptions batchRuleOptions(const Batch& batch, const LintContext& context);

// Lints one batch, read first with readDump; without a tokenizer and template the role-aware rules
// are listed in rules_not_run.
LintReport lintBatch(const Batch& batch, const LintContext& context = {});

} // namespace maskscope
