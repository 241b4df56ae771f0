// lintBatch(): lint one Batch (the app's current batch, or a dump), with the tokenizer, template and
// collator that made it when known. Rules: see LintRegistry.h.
#pragma once
#include "core/collate/CollatorSpec.h"
#include "core/data/Batch.h"
#include "core/lint/LintReport.h"
#include "core/template/ChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

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

// Lints one batch. When batch.meta is empty and both tokenizer and template are given, roles are
// recovered from the ids first; without them the role-aware rules are listed in rules_not_run.
LintReport lintBatch(const Batch& batch, const LintContext& context = {});

} // namespace maskscope
