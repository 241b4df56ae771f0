// Batch rules runner. Conventions (transformers): labels[b][t] is the id to predict at position t's
// input (the model shifts), -100 = ignored; attention_mask 0 = padding key, 1 = attend, or segment
// ids 1, 2, ... for packed rows; position_ids empty = the model derives arange(T). The rules
// themselves are in core/lint/rules/, one function per rule, registered in LintRegistry.h.
#include "core/lint/BatchRules.h"
#include "core/lint/LintRegistry.h"
#include "core/mask/RowFacts.h"

#include <algorithm>

namespace maskscope {

namespace {

// The summary's statistics of one row: positions, padding and graded tokens by role from rowFacts
// (the counts the app's summary and the loss breakdown show), and per example graded fraction and
// length.
void addRowStatistics(const RowInput& in, LintSummary& s) {
  const RowFacts f = rowFacts(in.b, in.r);
  s.positions += f.positions;
  s.paddingPositions += f.pads;
  s.realPositions += f.real();
  s.graded += f.gradedTotal();
  s.gradedPadding += f.graded[RolePad];
  s.gradedPrompt += f.graded[RolePrompt];
  s.gradedReply += f.graded[RoleReply];
  s.gradedUnknown += f.graded[RoleUnknown];
  for (const ExampleRange& ex : in.L.examples) {
    const auto [graded, real] = in.gradedAndReal(ex);
    ++s.rows;
    s.addGradedFraction(graded, real);
    if (!in.o.datasetPositions) s.addLength(real);
    if (graded == 0) ++s.rowsNothingGraded;
  }
}

} // namespace

bool runBatchRules(const Batch& b, const BatchRuleOptions& o, FindingCollector& out, LintSummary& summary,
                   long* fullSequenceRows) {
  const std::vector<LintRule>& rules = lintRules();
  BatchInput batchIn{b, o, out};
  for (const LintRule& rule : rules)
    if (rule.beforeRows && !rule.beforeRows(batchIn)) return false;
  int64_t maxInput = -1; // bounds labels when no tokenizer gives the vocabulary size
  for (int64_t v : b.inputIds.values) maxInput = std::max(maxInput, v);
  const int64_t B = b.batchSize(), T = b.length();
  for (int64_t r = 0; r < B; ++r) {
    const RowLayout L = rowLayout(b, r);
    const bool rowMeta = o.rolesKnown && size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T;
    RowInput in{b, r, B, T, L, o, out};
    in.meta = rowMeta ? &b.meta[size_t(r)] : nullptr;
    in.haveMask = b.attentionMask.sameShape(b.inputIds);
    in.havePos = b.positionIds.sameShape(b.inputIds);
    in.padId = b.padTokenId;
    in.maxInput = maxInput;
    in.fullSequenceRows = fullSequenceRows;
    addRowStatistics(in, summary);
    ++summary.batchRows;
    for (const LintRule& rule : rules)
      if (rule.row) rule.row(in);
  }
  for (int64_t r = 0; r < B; ++r) batchIn.gradedLabels += gradedInRow(b, r);
  for (const LintRule& rule : rules)
    if (rule.afterRows) rule.afterRows(batchIn);
  return true;
}

} // namespace maskscope
