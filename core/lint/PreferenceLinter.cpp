// lintPreferenceDataset(): preference data (prompt/chosen/rejected) linted pair by pair: the
// preference rules on each encoded pair, then every batch rule on the chosen and on the rejected
// sequences of each micro-batch (so stop-token-not-graded and the others run per side; their
// findings say which side). Rows are read whole (at most kMaxPreferenceRows), one thread.
#include "core/collate/PreferencePairs.h"
#include "core/lint/BatchRules.h"
#include "core/lint/Lint.h"
#include "core/lint/LintRegistry.h"
#include "core/lint/RoleRecovery.h"
#include "core/lint/TemplateChecks.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

namespace {

// "row 3: ..." -> "row 3 (chosen): ...": the side in every finding of a side's batch.
std::string withSide(const std::string& message, const char* side) {
  const size_t colon = message.find(':');
  if (message.starts_with("row ") && colon != std::string::npos)
    return message.substr(0, colon) + " (" + side + ")" + message.substr(colon);
  return std::string(side) + ": " + message;
}

// The batch rules over one side's batch; findings and statistics go to the run's report.
void lintSide(const Batch& batch, const char* side, const BatchRuleOptions& o, FindingCollector& out,
              LintSummary& summary, long& fullRows) {
  LintReport part;
  FindingCollector partOut(part, -1);
  runBatchRules(batch, o, partOut, part.summary, &fullRows);
  for (Finding& f : part.findings) {
    f.message = withSide(f.message, side);
    out.add(std::move(f));
  }
  LintSummary s = std::move(part.summary);
  s.errors = s.warnings = s.infos = 0; // counted again by out.add()
  s.findingsShown = s.findingsOmitted = 0;
  s.findingsByRule.clear();
  summary.merge(s);
}

void lintPairs(const DatasetPipeline& pipeline, const DatasetLintOptions& opt, const std::vector<PreferenceRow>& rows,
               FindingCollector& out, LintReport& report, long& fullRows) {
  const CollatorSpec& spec = pipeline.collator().spec();
  for (size_t from = 0; from < rows.size(); from += size_t(opt.microBatchSize)) {
    const size_t to = std::min(rows.size(), from + size_t(opt.microBatchSize));
    std::vector<EncodedPreference> pairs;
    for (size_t i = from; i < to; ++i) {
      try {
        pairs.push_back(encodePreference(pipeline, rows[i]));
      } catch (const std::exception& e) {
        Finding f{"row-skipped",
                  Severity::Warning,
                  rows[i].rowIndex,
                  std::nullopt,
                  "row " + std::to_string(rows[i].rowIndex) + ": the template refused it: " + e.what(),
                  rows[i].sourceLine};
        out.add(std::move(f));
        continue;
      }
      for (const LintRule& rule : lintRules())
        if (rule.preference) rule.preference(PreferenceInput{pairs.back(), out});
      // A pair's length is its longer sequence: rows count pairs, and max_length cuts either side.
      const int64_t len =
          int64_t(std::max(pairs.back().chosen.encoded.tokens.size(), pairs.back().rejected.encoded.tokens.size())) +
          (spec.addBos ? 1 : 0);
      report.summary.addLength(len);
      if (spec.truncation != Truncation::None && len > spec.maxLength) ++report.summary.rowsTruncated;
    }
    if (pairs.empty()) continue;
    const PreferenceBatches batches = collatePreference(pipeline, pairs);
    BatchRuleOptions o;
    o.generation = opt.generation;
    o.vocabSize = pipeline.tokenizer().vocabSize();
    o.intent = labelIntentOf(spec);
    o.rolesKnown = true;
    o.datasetPositions = true;
    o.firstDatasetRow = pairs.front().rowIndex;
    o.lastDatasetRow = pairs.back().rowIndex;
    const int64_t gradedBefore = report.summary.graded;
    lintSide(batches.chosen, "chosen", o, out, report.summary, fullRows);
    lintSide(batches.rejected, "rejected", o, out, report.summary, fullRows);
    report.summary.gradAccum.add(report.summary.graded - gradedBefore);
  }
}

} // namespace

LintReport lintPreferenceDataset(const std::string& dataSpec, const DatasetLintOptions& opt) {
  if (opt.microBatchSize < 1) throw Error("--micro-batch must be at least 1");
  if (opt.shardCount != 1) throw Error("--shard splits SFT datasets; preference data is linted whole");
  DatasetPipeline pipeline(opt.pipeline);
  std::vector<RowError> skipped;
  const std::vector<PreferenceRow> rows = readPreferenceDataset(dataSpec, &skipped, opt.rowBegin, opt.rowEnd);

  LintReport report;
  report.summary.input = "dataset";
  report.summary.maxLength = pipeline.collator().spec().maxLength;
  report.summary.gradAccum.microBatchSize = opt.microBatchSize;
  FindingCollector out(report, opt.maxFindings);
  const RoleMarkers markers = learnRoleMarkers(pipeline.encoder(), pipeline.renderOptions());
  runTemplateChecks(pipeline.encoder(), pipeline.renderOptions(), markers, &pipeline.collator().spec(), out);
  for (const RowError& e : skipped) {
    Finding f{"row-skipped", Severity::Warning, std::nullopt, std::nullopt, e.toString(), std::nullopt};
    if (e.line >= 0) f.line = e.line;
    out.add(std::move(f));
  }
  long fullRows = 0;
  lintPairs(pipeline, opt, rows, out, report, fullRows);
  report.summary.rows = long(rows.size()); // pairs, not sequences (each side counted its own)
  report.summary.rowsRead = long(rows.size());
  report.summary.rowsSkipped = long(skipped.size());
  addFullSequenceInfo(out, fullRows);
  report.fullSequenceRows = fullRows;
  if (opt.progress) opt.progress(1.0, report.summary.rowsRead);
  return report;
}

} // namespace maskscope
