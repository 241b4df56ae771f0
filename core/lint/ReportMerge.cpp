// The merge of shard reports (read back by ReportJson.cpp): summaries summed or combined, the
// findings interleaved by micro-batch index into the unsharded order.
#include "core/lint/ReportMerge.h"
#include "core/lint/BatchRules.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

namespace {

// Same settings everywhere, every index 0..N-1 exactly once.
void checkCoverage(const std::vector<ShardReport>& shards) {
  const ShardReport& first = shards.front();
  std::vector<const ShardReport*> byIndex(size_t(first.count), nullptr);
  for (const ShardReport& s : shards) {
    if (s.count != first.count)
      throw Error(s.path + ": shard of " + std::to_string(s.count) + ", but " + first.path + " is a shard of " +
                  std::to_string(first.count));
    for (const auto& [k, v] : first.settings.items())
      if (!s.settings.contains(k) || s.settings[k] != v)
        throw Error(s.path + ": linted with different settings than " + first.path + ": " + k + " " +
                    (s.settings.contains(k) ? s.settings[k].dump() : "(absent)") + " vs " + v.dump());
    if (s.settings.size() != first.settings.size())
      throw Error(s.path + ": linted with different settings than " + first.path);
    const ShardReport*& slot = byIndex[size_t(s.index)];
    if (slot)
      throw Error(s.path + ": shard " + std::to_string(s.index) + "/" + std::to_string(s.count) +
                  " is given twice (also " + slot->path + ")");
    slot = &s;
  }
  std::string missing;
  for (size_t i = 0; i < byIndex.size(); ++i)
    if (!byIndex[i]) missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(first.count);
  if (!missing.empty()) throw Error("lint --merge: missing shard(s) " + missing + " (have " + first.path + " ...)");
}

// The merged summary: sums, with each shard's own full-sequence-labels info taken out (the
// merge states it once, over all rows) and the micro-batch counts put back in dataset order.
void mergeSummaries(const std::vector<ShardReport>& shards, LintReport& out) {
  LintSummary& m = out.summary;
  std::vector<std::pair<long, int64_t>> perMicroBatch;
  m.gradAccum.microBatchSize = shards.front().report.summary.gradAccum.microBatchSize; // merge() keeps its own
  for (const ShardReport& s : shards) {
    m.merge(s.report.summary);
    out.fullSequenceRows += s.report.fullSequenceRows;
    if (s.report.fullSequenceRows > 0) {
      --m.infos;
      if (--m.findingsByRule["full-sequence-labels"] <= 0) m.findingsByRule.erase("full-sequence-labels");
    }
    const auto& counts = s.report.summary.gradAccum.perMicroBatch;
    for (size_t i = 0; i < counts.size() && i < s.report.microBatchIndex.size(); ++i)
      perMicroBatch.emplace_back(s.report.microBatchIndex[i], counts[i]);
  }
  std::sort(perMicroBatch.begin(), perMicroBatch.end());
  m.gradAccum.perMicroBatch.clear();
  for (const auto& [index, graded] : perMicroBatch) m.gradAccum.perMicroBatch.push_back(graded);
}

} // namespace

MergedReport mergeShardReports(const std::vector<ShardFile>& files) {
  if (files.empty()) throw Error("lint --merge needs the shard reports (SHARD.json ...)");
  std::vector<ShardReport> shards;
  for (const ShardFile& f : files) shards.push_back(shardReportFromJson(f));
  checkCoverage(shards);
  std::sort(shards.begin(), shards.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  MergedReport out;
  out.settings = shards.front().settings;
  const long maxFindings = out.settings.value("max_findings", -1L);
  LintReport& r = out.report;
  mergeSummaries(shards, r);
  // Findings by micro-batch index; a micro-batch lives in one shard, whose order is kept.
  struct Entry {
    long microBatch;
    const Finding* finding;
  };
  std::vector<Entry> entries;
  for (const ShardReport& s : shards)
    for (size_t i = 0; i < s.report.findings.size(); ++i)
      if (s.report.findingMicroBatch[i] != kAfterMicroBatches)
        entries.push_back({s.report.findingMicroBatch[i], &s.report.findings[i]});
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.microBatch < b.microBatch; });
  for (const Entry& e : entries) {
    if (maxFindings >= 0 && long(r.findings.size()) >= maxFindings) break;
    r.findings.push_back(*e.finding);
  }
  FindingCollector tail(r, maxFindings);
  addFullSequenceInfo(tail, r.fullSequenceRows); // counts it once and lists it if room is left
  r.summary.findingsShown = long(r.findings.size());
  r.summary.findingsOmitted = r.summary.errors + r.summary.warnings + r.summary.infos - r.summary.findingsShown;
  return out;
}

} // namespace maskscope
