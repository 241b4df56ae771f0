// lintBatch(): one batch, with optional tokenizer/template context (the app's current batch, or a
// dump). Roles are recovered from the ids when the batch has no metadata.
#include "core/lint/BatchLinter.h"
#include "core/lint/BatchRules.h"
#include "core/lint/RoleRecovery.h"
#include "core/lint/TemplateChecks.h"

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

LintReport lintBatch(const Batch& input, const LintContext& ctx) {
  LintReport report;
  report.summary.input = "batch";
  FindingCollector out(report, ctx.maxFindings);
  Batch b = input;
  if (ctx.tokenizer) {
    const SpecialTokenIds sp = effectiveSpecialTokens(*ctx.tokenizer, ctx.render);
    if (!b.padTokenId) {
      if (sp.pad)
        b.padTokenId = *sp.pad;
      else if (sp.eos)
        b.padTokenId = *sp.eos;
    }
    if (!b.eosTokenId && sp.eos) b.eosTokenId = *sp.eos;
    if (!b.bosTokenId && sp.bos) b.bosTokenId = *sp.bos;
  }
  BatchRuleOptions o;
  o.generation = ctx.generation;
  if (ctx.tokenizer) o.vocabSize = ctx.tokenizer->vocabSize();
  if (ctx.collator) o.intent = labelIntentOf(*ctx.collator);
  const bool shapesOk = b.labels.sameShape(b.inputIds) &&
                        (b.attentionMask.empty() || b.attentionMask.sameShape(b.inputIds)) &&
                        (b.positionIds.empty() || b.positionIds.sameShape(b.inputIds));
  bool haveMeta = b.meta.size() == size_t(b.batchSize());
  for (const auto& m : b.meta) haveMeta = haveMeta && int64_t(m.size()) == b.length();
  haveMeta = haveMeta && b.batchSize() > 0;

  if (ctx.tokenizer && ctx.chatTemplate) {
    ConversationEncoder enc(ctx.tokenizer, ctx.chatTemplate);
    RoleMarkers markers = learnRoleMarkers(enc, ctx.render);
    runTemplateChecks(enc, ctx.render, markers, ctx.collator ? &*ctx.collator : nullptr, out);
    if (!haveMeta && shapesOk && markers.usable()) {
      recoverRoles(b, markers, *ctx.tokenizer);
      haveMeta = true;
    }
  }
  o.rolesKnown = haveMeta;
  if (!haveMeta) {
    report.summary.rulesNotRun = {"prompt-graded",   "last-turn-only",
                                  "reply-truncated", "special-token-injection",
                                  "boundary-merge",  "template-no-generation-markers",
                                  "eos-mismatch"};
    std::string why = ctx.tokenizer && ctx.chatTemplate
                          ? "the template's role headers were not found; check --template"
                          : "pass --tokenizer (the one that made the dump, and --template if it has none) to recover "
                            "roles";
    std::string list;
    for (const auto& r : report.summary.rulesNotRun) list += (list.empty() ? "" : ", ") + r;
    out.add("rules-not-run", std::nullopt, std::nullopt,
            "roles of the positions are unknown (" + why + "): " + list + " did not run" +
                (b.eosTokenId ? "; stop-token-not-graded ran on EOS ids only" : "; stop-token-not-graded did not run"));
    if (!b.eosTokenId) report.summary.rulesNotRun.push_back("stop-token-not-graded");
  }
  if (!ctx.tokenizer && !b.padTokenId) {
    report.summary.rulesNotRun.push_back("pad-graded (all-ones masks: no pad id)");
    out.add("rules-not-run", std::nullopt, std::nullopt,
            "no pad id (no pad_token_id in the dump, no --tokenizer): padding is found only where attention_mask is "
            "0, so pad-graded and pad-attended cannot see the pads of an all-ones mask; pass --pad-id N or "
            "--tokenizer");
  }
  long fullRows = 0;
  runBatchRules(b, o, out, report.summary, &fullRows);
  addFullSequenceInfo(out, fullRows);
  report.summary.gradAccum.add(report.summary.graded);
  return report;
}

} // namespace maskscope
