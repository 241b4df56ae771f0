// Template-, conversation- and row-content checks: the runners over the registry's template and
// content rules (core/lint/rules/TemplateRules.cpp, ContentRules.cpp) and the special tokens as
// transformers sees them.
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
                           const Conversation* conversation, RowLocation location) {
  const ConversationInput in{tc, row, out, conversation, location};
  for (const LintRule& rule : lintRules())
    if (rule.conversation) rule.conversation(in);
}

DatasetFacts datasetFactsOf(const ConversationEncoder& enc) {
  DatasetFacts facts;
  facts.chatTemplate = &enc.chatTemplate();
  facts.thinkTags = enc.chatTemplate().source().find("<think>") != std::string::npos ||
                    enc.tokenizer().tokenToId("<think>").has_value();
  return facts;
}

void runContentChecks(const Conversation& conversation, const TokenizedConversation* encoded, const DatasetFacts& facts,
                      FindingCollector& out) {
  const RowContentInput in{conversation, encoded, RowLocation{conversation.sourceLine, conversation.sourceItem}, facts,
                           out};
  for (const LintRule& rule : lintRules())
    if (rule.content) rule.content(in);
}

} // namespace maskscope
