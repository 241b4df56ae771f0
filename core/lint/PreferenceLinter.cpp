// lintPreferenceDataset(): preference data (prompt/chosen/rejected) linted pair by pair: the
// preference rules on each encoded pair, then every batch rule on the chosen and on the rejected
// sequences of each micro-batch (so stop-token-not-graded and the others run per side; their
// findings say which side). Rows are streamed in micro-batches, one thread.
#include "core/lint/PreferenceLinter.h"
#include "core/collate/PreferencePairs.h"
#include "core/lint/BatchRules.h"
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

// One micro-batch of pairs: the preference rules per pair, then the batch rules per side.
void lintChunk(const DatasetPipeline& pipeline, const DatasetLintOptions& opt, const std::vector<PreferenceRow>& rows,
               FindingCollector& out, LintReport& report, long& fullRows) {
  const CollatorSpec& spec = pipeline.collator().spec();
  std::vector<EncodedPreference> pairs;
  for (const PreferenceRow& row : rows) {
    try {
      pairs.push_back(encodePreference(pipeline, row));
    } catch (const std::exception& e) {
      out.add(Finding{"row-skipped", Severity::Warning, row.rowIndex, std::nullopt,
                      "row " + std::to_string(row.rowIndex) + ": the template refused it: " + e.what(),
                      row.sourceLine});
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
  if (pairs.empty()) return;
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

// Streams the pairs of --rows A:B in micro-batches; rows the reader skips count when they lie after
// row A (anywhere before it when A is 0) and before row B, as for SFT data.
void lintPairs(const DatasetPipeline& pipeline, const DatasetLintOptions& opt, PreferenceReader& reader,
               FindingCollector& out, LintReport& report, long& fullRows) {
  std::vector<PreferenceRow> chunk;
  size_t errorsSeen = 0;
  PreferenceRow row;
  for (;;) {
    const bool got = reader.next(row);
    const long next = got ? row.rowIndex : reader.rowsRead();
    const bool inRange = (next > opt.rowBegin || opt.rowBegin == 0) && (opt.rowEnd < 0 || next < opt.rowEnd);
    for (; errorsSeen < reader.errors().size(); ++errorsSeen) {
      if (!inRange) continue;
      const RowError& e = reader.errors()[errorsSeen];
      ++report.summary.rowsSkipped;
      out.add(Finding{"row-skipped", Severity::Warning, std::nullopt, std::nullopt, e.toString(),
                      e.line >= 0 ? std::optional<long>(e.line) : std::nullopt});
    }
    if (!got || (opt.rowEnd >= 0 && row.rowIndex >= opt.rowEnd)) break;
    if (row.rowIndex < opt.rowBegin) continue;
    ++report.summary.rowsRead;
    chunk.push_back(std::move(row));
    row = PreferenceRow{};
    if (int(chunk.size()) >= opt.microBatchSize) {
      lintChunk(pipeline, opt, chunk, out, report, fullRows);
      chunk.clear();
    }
  }
  if (!chunk.empty()) lintChunk(pipeline, opt, chunk, out, report, fullRows);
}

} // namespace

LintReport lintPreferenceDataset(const std::string& dataSpec, const DatasetLintOptions& opt) {
  if (opt.microBatchSize < 1) throw Error("--micro-batch must be at least 1");
  if (opt.shardCount != 1) throw Error("--shard splits SFT datasets; preference data is linted whole");
  DatasetPipeline pipeline(opt.pipeline);
  PreferenceReader reader(dataSpec);

  LintReport report;
  report.summary.input = "dataset";
  report.summary.maxLength = pipeline.collator().spec().maxLength;
  report.summary.gradAccum.microBatchSize = opt.microBatchSize;
  FindingCollector out(report, opt.maxFindings);
  const RoleMarkers markers = learnRoleMarkers(pipeline.encoder(), pipeline.renderOptions());
  runTemplateChecks(pipeline.encoder(), pipeline.renderOptions(), markers, &pipeline.collator().spec(), out);
  long fullRows = 0;
  lintPairs(pipeline, opt, reader, out, report, fullRows);
  report.summary.rows = report.summary.rowsRead; // pairs, not sequences (each side counted its own)
  if (opt.rowBegin == 0 && opt.rowEnd < 0)
    report.summary.rowsSkipped = reader.rowsSkipped(); // past the kept errors too
  addFullSequenceInfo(out, fullRows);
  report.fullSequenceRows = fullRows;
  if (opt.progress) opt.progress(1.0, report.summary.rowsRead);
  return report;
}

} // namespace maskscope
