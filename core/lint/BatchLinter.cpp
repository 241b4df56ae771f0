// lintBatch(): one batch, with optional tokenizer/template context (the app's current batch, or a
// dump). Roles are recovered from the ids when the batch has no metadata.
#include "core/lint/BatchLinter.h"
#include "core/collate/TemplateVariables.h"
#include "core/lint/BatchRules.h"
#include "core/lint/RoleRecovery.h"
#include "core/lint/TemplateChecks.h"
#include "core/tokenizer/DefaultPad.h"

namespace maskscope {

LabelIntent labelIntentOf(const CollatorSpec& spec) {
  switch (spec.labels) {
  case LabelMode::All:
  case LabelMode::PadMasked:
  case LabelMode::MaskPadId:
    return LabelIntent::FullSequence;
  case LabelMode::AssistantOnly:
    return LabelIntent::RepliesOnly;
  case LabelMode::LastTurn:
    return LabelIntent::RepliesOnly; // a collator bug: every reply should count
  case LabelMode::CompletionOnly:
    return LabelIntent::LastReplyOnly;
  }
  return LabelIntent::Unknown;
}

void addFullSequenceInfo(FindingCollector& out, long rows) {
  if (rows > 0)
    out.add("full-sequence-labels", std::nullopt, std::nullopt,
            std::to_string(rows) + " row(s) grade the prompt as well as the replies (full-sequence training)");
}

namespace {

bool shapesMatch(const Batch& b) {
  return b.labels.sameShape(b.inputIds) && (b.attentionMask.empty() || b.attentionMask.sameShape(b.inputIds)) &&
         (b.positionIds.empty() || b.positionIds.sameShape(b.inputIds));
}

bool hasMeta(const Batch& b) {
  bool haveMeta = b.meta.size() == size_t(b.batchSize());
  for (const auto& m : b.meta) haveMeta = haveMeta && int64_t(m.size()) == b.length();
  return haveMeta && b.batchSize() > 0;
}

} // namespace

DumpReading readDump(Batch& b, const LintContext& ctx, const RoleMarkers* learnt) {
  DumpReading out;
  if (!ctx.tokenizer) return out;
  // A dump without pad/EOS/BOS ids takes the tokenizer's, as the collator would have used them
  // (core/collate/TemplateVariables.h; no pad token: the EOS, core/tokenizer/DefaultPad.h).
  const SpecialTokenIds sp = specialTokenIds(*ctx.tokenizer, ctx.render);
  if (!b.padTokenId) {
    if (const DefaultPad pad = defaultPad(sp); pad.id) b.padTokenId = *pad.id;
  }
  if (!b.eosTokenId && sp.eos) b.eosTokenId = *sp.eos;
  if (!b.bosTokenId && sp.bos) b.bosTokenId = *sp.bos;
  if (!ctx.chatTemplate) return out;
  out.markers = learnt ? *learnt : learnRoleMarkers(ConversationEncoder(ctx.tokenizer, ctx.chatTemplate), ctx.render);
  if (!hasMeta(b) && shapesMatch(b) && out.markers.usable()) {
    recoverRoles(b, out.markers, *ctx.tokenizer, &out.rowJoins);
    out.rolesRecovered = true;
  }
  return out;
}

void runOnceChecks(const Batch& b, const LintContext& ctx, const DumpReading& read, FindingCollector& out,
                   LintSummary& summary) {
  if (ctx.tokenizer && ctx.chatTemplate)
    runTemplateChecks(ConversationEncoder(ctx.tokenizer, ctx.chatTemplate), ctx.render, read.markers,
                      ctx.collator ? &*ctx.collator : nullptr, out);
  if (ctx.tokenizer && b.framework && !b.framework->nativeTemplate.empty())
    out.add("rules-not-run", std::nullopt, std::nullopt,
            "the template rules read Jinja chat templates, and this batch was rendered with " +
                b.framework->nativeTemplate + " (the framework's own format): they did not run");
  if (!hasMeta(b)) {
    summary.rulesNotRun = {"prompt-graded",   "last-turn-only",
                           "reply-truncated", "special-token-injection",
                           "boundary-merge",  "template-no-generation-markers",
                           "eos-mismatch"};
    std::string why = ctx.tokenizer && ctx.chatTemplate
                          ? "the template's role headers were not found; check --template"
                          : "pass --tokenizer (the one that made the dump, and --template if it has none) to recover "
                            "roles";
    std::string list;
    for (const auto& r : summary.rulesNotRun) list += (list.empty() ? "" : ", ") + r;
    out.add("rules-not-run", std::nullopt, std::nullopt,
            "roles of the positions are unknown (" + why + "): " + list + " did not run" +
                (b.eosTokenId ? "; stop-token-not-graded ran on EOS ids only" : "; stop-token-not-graded did not run"));
    if (!b.eosTokenId) summary.rulesNotRun.push_back("stop-token-not-graded");
  }
  if (!ctx.tokenizer && !b.padTokenId) {
    summary.rulesNotRun.push_back("pad-graded (all-ones masks: no pad id)");
    out.add("rules-not-run", std::nullopt, std::nullopt,
            "no pad id (no pad_token_id in the dump, no --tokenizer): padding is found only where attention_mask is "
            "0, so pad-graded and pad-attended cannot see the pads of an all-ones mask; pass --pad-id N or "
            "--tokenizer");
  }
}

BatchRuleOptions batchRuleOptions(const Batch& b, const LintContext& ctx) {
  BatchRuleOptions o;
  o.generation = ctx.generation;
  o.attnImplementation = ctx.attnImplementation;
  if (ctx.tokenizer) o.vocabSize = ctx.tokenizer->vocabSize();
  if (ctx.collator) o.intent = labelIntentOf(*ctx.collator);
  o.collatorPacks = ctx.collator && ctx.collator->packing != Packing::None;
  o.rolesKnown = hasMeta(b);
  return o;
}

LintReport lintBatch(const Batch& input, const LintContext& ctx) {
  LintReport report;
  report.summary.input = "batch";
  FindingCollector out(report, ctx.maxFindings);
  if (ctx.findingSink) out.setSink(ctx.findingSink);
  Batch b = input;
  const DumpReading read = readDump(b, ctx);
  runOnceChecks(b, ctx, read, out, report.summary);
  long fullRows = 0;
  BatchRuleOptions o = batchRuleOptions(b, ctx);
  o.rowJoins = &read.rowJoins;
  runBatchRules(b, o, out, report.summary, &fullRows);
  addFullSequenceInfo(out, fullRows);
  report.summary.gradAccum.add(report.summary.graded);
  return report;
}

} // namespace maskscope
