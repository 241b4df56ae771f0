// A run of batches linted as one report (see BatchRunLinter.h): each batch's findings renumbered
// into the run's rows, statements about the whole input kept once.
#include "core/lint/BatchRunLinter.h"

#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

namespace {

// Batch row r of a batch whose rows start at offset: the run's row, in the finding and in the
// "row N" its message starts with (RuleInput::label, packing-depends-on-attention).
void renumber(Finding& f, int64_t offset) {
  if (offset == 0 || !f.row) return;
  const std::string before = "row " + std::to_string(*f.row);
  f.row = *f.row + offset;
  const bool prefixed = f.message.starts_with(before) &&
                        (f.message.size() == before.size() || !std::isdigit(uint8_t(f.message[before.size()])));
  if (prefixed) f.message = "row " + std::to_string(*f.row) + f.message.substr(before.size());
}

// batch-nothing-graded of batch k whose rows start at first, when the run has several batches.
void nameBatch(Finding& f, long k, int64_t first, int64_t rows) {
  f.row = first;
  f.message = "batch " + std::to_string(k) + " (rows " + std::to_string(first) + ".." +
              std::to_string(first + rows - 1) + "): " + f.message;
}

} // namespace

LintReport lintBatchRun(const NextBatch& next, const LintContext& ctx, int rowsPerBatch) {
  LintReport report;
  report.summary.gradAccum.microBatchSize = rowsPerBatch;
  std::vector<Finding> found;                              // every finding, in order, statements once
  std::map<std::pair<std::string, int>, size_t> statement; // (rule, n-th in its batch) -> index in found
  struct EmptyBatch {
    size_t at;
    long k;
    int64_t first, rows;
  };
  std::vector<EmptyBatch> empty;
  std::optional<RoleMarkers> markers; // learnt once: it renders the template's probe conversations
  long fullRows = 0, batches = 0;
  int64_t offset = 0, eosUngraded = 0;
  Batch b;
  while (next(b)) {
    LintReport scratch; // this batch's findings, uncapped; the counts are made once, below
    FindingCollector out(scratch);
    const DumpReading read = readDump(b, ctx, markers ? &*markers : nullptr);
    if (!markers) markers = read.markers;
    if (batches == 0) {
      runOnceChecks(b, ctx, read, out, report.summary);
      found = std::move(scratch.findings);
      scratch.findings.clear();
    }
    BatchRuleOptions o = batchRuleOptions(b, ctx);
    o.eosUngradedInRun = &eosUngraded;
    o.rowJoins = &read.rowJoins;
    const int64_t gradedBefore = report.summary.graded;
    runBatchRules(b, o, out, report.summary, &fullRows);
    report.summary.gradAccum.add(report.summary.graded - gradedBefore);
    std::map<std::string, int> seen;
    for (Finding& f : scratch.findings) {
      if (f.row) {
        renumber(f, offset);
        found.push_back(std::move(f));
      } else if (f.rule == "batch-nothing-graded") {
        empty.push_back({found.size(), batches, offset, b.batchSize()});
        found.push_back(std::move(f));
      } else {
        const auto [it, fresh] = statement.try_emplace({f.rule, seen[f.rule]++}, found.size());
        if (fresh)
          found.push_back(std::move(f));
        else
          found[it->second] = std::move(f);
      }
    }
    offset += b.batchSize();
    ++batches;
  }
  if (batches > 1)
    for (const EmptyBatch& e : empty) nameBatch(found[e.at], e.k, e.first, e.rows);
  FindingCollector out(report, ctx.maxFindings);
  if (ctx.findingSink) out.setSink(ctx.findingSink);
  for (Finding& f : found) out.add(std::move(f));
  addFullSequenceInfo(out, fullRows);
  report.fullSequenceRows = fullRows;
  return report;
}

} // namespace maskscope
