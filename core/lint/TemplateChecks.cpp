// Template- and conversation-level checks: the runners over the registry's template rules (their
// functions live in core/lint/rules/TemplateRules.cpp).
#include "core/lint/TemplateChecks.h"
#include "core/lint/LintRegistry.h"

namespace maskscope {

void runTemplateChecks(const ConversationEncoder& enc, const RenderOptions& render, const RoleMarkers& markers,
                       const CollatorSpec* collator, FindingCollector& out) {
  const TemplateInput in{enc, render, markers, collator, out};
  for (const LintRule& rule : lintRules())
    if (rule.once) rule.once(in);
}

void runConversationChecks(const TokenizedConversation& tc, long row, FindingCollector& out,
                           const Conversation* conversation) {
  const ConversationInput in{tc, row, out, conversation};
  for (const LintRule& rule : lintRules())
    if (rule.conversation) rule.conversation(in);
}

} // namespace maskscope
