// Shard report JSON (the "shard" object) and the merge of shard reports: every summary field is
// parsed back, summed or combined, and the findings are interleaved by micro-batch index.
#include "core/lint/ReportMerge.h"
#include "core/lint/BatchRules.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <algorithm>
#include <set>

namespace maskscope {

namespace {

using nlohmann::json;

// Summary keys the merge knows how to combine (derived ones are recomputed). A report with
// another key comes from another maskscope version: refused rather than merged wrongly.
const std::set<std::string> kSummaryKeys = {"rows",
                                            "errors",
                                            "warnings",
                                            "infos",
                                            "input",
                                            "findings_shown",
                                            "findings_omitted",
                                            "findings_by_rule",
                                            "rules_not_run",
                                            "rows_read",
                                            "rows_skipped",
                                            "positions",
                                            "graded",
                                            "rows_nothing_graded",
                                            "length",
                                            "grad_accum",
                                            "source",
                                            "shard"};

Error bad(const std::string& path, const std::string& what) {
  return Error(path + ": not a maskscope lint shard report: " + what);
}

const json& field(const json& j, const char* key, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) throw bad(path, std::string("no \"") + key + "\"");
  return j.at(key);
}

template <typename T> T number(const json& j, const char* key, const std::string& path) {
  const json& v = field(j, key, path);
  if (!v.is_number_integer()) throw bad(path, std::string("\"") + key + "\" is not an integer");
  return v.get<T>();
}

template <size_t N> void histogram(const json& j, const char* key, std::array<long, N>& out, const std::string& p) {
  const json& v = field(j, key, p);
  if (!v.is_array() || v.size() != N)
    throw bad(p, std::string("\"") + key + "\" has not " + std::to_string(N) + " bins");
  for (size_t i = 0; i < N; ++i) {
    if (!v[i].is_number_integer()) throw bad(p, std::string("\"") + key + "\" holds a non-integer");
    out[i] = v[i].get<long>();
  }
}

Severity severityOf(const json& v, const std::string& path) {
  const std::string s = v.is_string() ? v.get<std::string>() : "";
  if (s == "error") return Severity::Error;
  if (s == "warning") return Severity::Warning;
  if (s == "info") return Severity::Info;
  throw bad(path, "a finding has severity " + v.dump());
}

Finding findingFromJson(const json& j, const std::string& path) {
  Finding f;
  const json& rule = field(j, "rule", path);
  const json& msg = field(j, "message", path);
  if (!rule.is_string() || !msg.is_string()) throw bad(path, "a finding's rule or message is not text");
  f.rule = rule.get<std::string>();
  f.message = msg.get<std::string>();
  f.severity = severityOf(field(j, "severity", path), path);
  const json& row = field(j, "row", path);
  const json& pos = field(j, "position", path);
  if (row.is_number_integer()) f.row = row.get<int64_t>();
  if (pos.is_number_integer()) f.position = pos.get<int64_t>();
  if (j.contains("line") && j["line"].is_number_integer()) f.line = j["line"].get<long>();
  return f;
}

void countsFromJson(const json& s, LintSummary& o, const std::string& p) {
  o.rows = number<long>(s, "rows", p);
  o.errors = number<long>(s, "errors", p);
  o.warnings = number<long>(s, "warnings", p);
  o.infos = number<long>(s, "infos", p);
  const json& input = field(s, "input", p);
  if (input != "dataset") throw bad(p, "its input is not a dataset");
  o.input = "dataset";
  for (const auto& [k, v] : field(s, "findings_by_rule", p).items()) {
    if (!v.is_number_integer()) throw bad(p, "findings_by_rule holds a non-integer");
    o.findingsByRule[k] = v.get<long>();
  }
  for (const json& r : field(s, "rules_not_run", p)) {
    if (!r.is_string()) throw bad(p, "rules_not_run holds a non-text");
    o.rulesNotRun.push_back(r.get<std::string>());
  }
  o.rowsRead = number<long>(s, "rows_read", p);
  o.rowsSkipped = number<long>(s, "rows_skipped", p);
  o.rowsNothingGraded = number<long>(s, "rows_nothing_graded", p);
  const json& pos = field(s, "positions", p);
  o.positions = number<int64_t>(pos, "total", p);
  o.realPositions = number<int64_t>(pos, "real", p);
  o.paddingPositions = number<int64_t>(pos, "padding", p);
  const json& g = field(s, "graded", p);
  o.graded = number<int64_t>(g, "total", p);
  o.gradedPadding = number<int64_t>(g, "padding", p);
  o.gradedPrompt = number<int64_t>(g, "prompt", p);
  o.gradedReply = number<int64_t>(g, "reply", p);
  o.gradedUnknown = number<int64_t>(g, "unknown_role", p);
  histogram(g, "fraction_histogram", o.gradedFractionHistogram, p);
}

// The summary back from its JSON; the raw minima and the per-micro-batch counts come from the
// "shard" object (the summary shows them clamped or not at all).
LintSummary summaryFromJson(const json& s, const json& shard, const std::string& p) {
  for (const auto& [k, v] : s.items())
    if (!kSummaryKeys.count(k)) throw bad(p, "summary field \"" + k + "\" is unknown to this maskscope's merge");
  LintSummary o;
  countsFromJson(s, o, p);
  const json& len = field(s, "length", p);
  o.lengthMin = number<int64_t>(shard, "length_min", p);
  o.lengthMax = number<int64_t>(len, "max", p);
  o.lengthSum = number<int64_t>(len, "sum", p);
  o.maxLength = number<int>(len, "max_length", p);
  o.rowsOverMaxLength = number<long>(len, "over_max_length", p);
  o.rowsTruncated = number<long>(len, "truncated", p);
  histogram(len, "histogram_quarters_of_max_length", o.lengthHistogram, p);
  const json& ga = field(s, "grad_accum", p);
  GradAccumStats& a = o.gradAccum;
  a.microBatchSize = number<int>(ga, "micro_batch_size", p);
  a.microBatches = number<long>(ga, "micro_batches", p);
  a.emptyMicroBatches = number<long>(ga, "empty_micro_batches", p);
  a.gradedTokens = number<int64_t>(ga, "graded_tokens", p);
  a.maxTokens = number<int64_t>(ga, "graded_per_micro_batch_max", p);
  a.minTokens = a.microBatches > a.emptyMicroBatches ? number<int64_t>(ga, "graded_per_micro_batch_min", p) : -1;
  const json& complete = field(shard, "micro_batches_complete", p);
  if (!complete.is_boolean()) throw bad(p, "\"micro_batches_complete\" is not a boolean");
  a.perMicroBatchComplete = complete.get<bool>();
  return o;
}

struct ParsedShard {
  std::string path;
  int index = 0, count = 0;
  json settings;
  LintReport report;
};

ParsedShard parseShard(const ShardFile& f) {
  const std::string& p = f.path;
  ParsedShard s;
  s.path = p;
  if (!f.json.is_object()) throw bad(p, "not a JSON object");
  const json& sh = field(f.json, "shard", p);
  const json& format = field(sh, "format", p);
  if (format != kShardFormat)
    throw bad(p, "shard format " + format.dump() + ", this maskscope reads \"" + kShardFormat + "\"");
  s.index = number<int>(sh, "index", p);
  s.count = number<int>(sh, "count", p);
  if (s.count < 1 || s.index < 0 || s.index >= s.count) throw bad(p, "shard index/count out of range");
  s.settings = field(sh, "settings", p);
  if (!s.settings.is_object()) throw bad(p, "\"settings\" is not an object");
  const json& findings = field(f.json, "findings", p);
  const json& where = field(sh, "finding_micro_batches", p);
  if (!findings.is_array() || !where.is_array() || where.size() != findings.size())
    throw bad(p, "\"finding_micro_batches\" does not match \"findings\"");
  LintReport& r = s.report;
  for (size_t i = 0; i < findings.size(); ++i) {
    r.findings.push_back(findingFromJson(findings[i], p));
    if (!where[i].is_null() && !where[i].is_number_integer()) throw bad(p, "a micro-batch index is not an integer");
    r.findingMicroBatch.push_back(where[i].is_null() ? kAfterMicroBatches : where[i].get<long>());
  }
  r.summary = summaryFromJson(field(f.json, "summary", p), sh, p);
  for (const json& mb : field(sh, "micro_batches", p)) {
    if (!mb.is_array() || mb.size() != 2 || !mb[0].is_number_integer() || !mb[1].is_number_integer())
      throw bad(p, "\"micro_batches\" holds something other than [index, graded]");
    r.microBatchIndex.push_back(mb[0].get<long>());
    r.summary.gradAccum.perMicroBatch.push_back(mb[1].get<int64_t>());
  }
  r.fullSequenceRows = number<long>(sh, "full_sequence_rows", p);
  return s;
}

// Same settings everywhere, every index 0..N-1 exactly once.
void checkCoverage(const std::vector<ParsedShard>& shards) {
  const ParsedShard& first = shards.front();
  std::vector<const ParsedShard*> byIndex(size_t(first.count), nullptr);
  for (const ParsedShard& s : shards) {
    if (s.count != first.count)
      throw Error(s.path + ": shard of " + std::to_string(s.count) + ", but " + first.path + " is a shard of " +
                  std::to_string(first.count));
    for (const auto& [k, v] : first.settings.items())
      if (!s.settings.contains(k) || s.settings[k] != v)
        throw Error(s.path + ": linted with different settings than " + first.path + ": " + k + " " +
                    (s.settings.contains(k) ? s.settings[k].dump() : "(absent)") + " vs " + v.dump());
    if (s.settings.size() != first.settings.size())
      throw Error(s.path + ": linted with different settings than " + first.path);
    const ParsedShard*& slot = byIndex[size_t(s.index)];
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
void mergeSummaries(const std::vector<ParsedShard>& shards, LintReport& out) {
  LintSummary& m = out.summary;
  std::vector<std::pair<long, int64_t>> perMicroBatch;
  m.gradAccum.microBatchSize = shards.front().report.summary.gradAccum.microBatchSize; // merge() keeps its own
  for (const ParsedShard& s : shards) {
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

nlohmann::json shardReportJson(const LintReport& report, int index, int count, const nlohmann::json& settings) {
  json j = report.toJson();
  json where = json::array();
  for (size_t i = 0; i < report.findings.size(); ++i) {
    const long mb = i < report.findingMicroBatch.size() ? report.findingMicroBatch[i] : kAfterMicroBatches;
    where.push_back(mb == kAfterMicroBatches ? json(nullptr) : json(mb));
  }
  json batches = json::array();
  const auto& counts = report.summary.gradAccum.perMicroBatch;
  for (size_t i = 0; i < counts.size() && i < report.microBatchIndex.size(); ++i)
    batches.push_back({report.microBatchIndex[i], counts[i]});
  j["shard"] = {{"format", kShardFormat},
                {"index", index},
                {"count", count},
                {"settings", settings},
                {"finding_micro_batches", where},
                {"micro_batches", batches},
                {"micro_batches_complete", report.summary.gradAccum.perMicroBatchComplete},
                {"full_sequence_rows", report.fullSequenceRows},
                {"length_min", report.summary.lengthMin}};
  return j;
}

MergedReport mergeShardReports(const std::vector<ShardFile>& files) {
  if (files.empty()) throw Error("lint --merge needs the shard reports (SHARD.json ...)");
  std::vector<ParsedShard> shards;
  for (const ShardFile& f : files) shards.push_back(parseShard(f));
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
  for (const ParsedShard& s : shards)
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

ShardFile readShardFile(const std::string& path) {
  ShardFile f;
  f.path = path;
  const std::string text = readFileCapped(path);
  try {
    f.json = parseJsonOrThrow(text, SourceLocation{path});
  } catch (const Error& e) {
    throw bad(path, std::string("not JSON (") + e.what() + ")");
  }
  return f;
}

} // namespace maskscope
