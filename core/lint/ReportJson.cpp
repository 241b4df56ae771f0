// The lint report's JSON: the writer (report, summary, findings, the shard object) and the reader
// of a shard report, side by side, so that a field added to one is added to the other. Every
// summary field is read back except the derived ones (shares, mean, weights), which are recomputed.
#include "core/lint/ReportJson.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <algorithm>
#include <set>

namespace maskscope {

using nlohmann::json;

// ---- writer ----------------------------------------------------------------------------------

namespace {

json share(int64_t part, int64_t whole) { return whole > 0 ? json(double(part) / double(whole)) : json(nullptr); }

json optionalNumber(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json gradAccumToJson(const GradAccumStats& g) {
  json j;
  j["micro_batch_size"] = g.microBatchSize;
  j["micro_batches"] = g.microBatches;
  j["empty_micro_batches"] = g.emptyMicroBatches;
  j["graded_tokens"] = g.gradedTokens;
  j["graded_per_micro_batch_min"] = std::max<int64_t>(g.minTokens, 0);
  j["graded_per_micro_batch_max"] = g.maxTokens;
  const GradAccumStats::Weights w = g.weights();
  j["max_token_weight_ratio"] = optionalNumber(w.maxTokenRatio);
  j["min_token_weight_ratio"] = optionalNumber(w.minTokenRatio);
  j["weight_misallocation"] = optionalNumber(w.misallocation);
  if (w.misallocation) j["weight_misallocation_exact"] = g.perMicroBatchComplete;
  return j;
}

} // namespace

json summaryToJson(const LintSummary& s) {
  json j;
  j["rows"] = s.rows;
  j["batch_rows"] = s.batchRows;
  j["errors"] = s.errors;
  j["warnings"] = s.warnings;
  j["infos"] = s.infos;
  j["scopes"] = {{"data", {{"errors", s.dataErrors}, {"warnings", s.dataWarnings}, {"infos", s.dataInfos}}},
                 {"settings",
                  {{"errors", s.errors - s.dataErrors},
                   {"warnings", s.warnings - s.dataWarnings},
                   {"infos", s.infos - s.dataInfos}}}};
  j["input"] = s.input;
  if (!s.source.empty()) j["source"] = s.source;
  if (!s.shard.empty()) j["shard"] = s.shard;
  j["findings_shown"] = s.findingsShown;
  j["findings_omitted"] = s.findingsOmitted;
  j["findings_by_rule"] = s.findingsByRule;
  j["rules_not_run"] = s.rulesNotRun;
  j["rows_read"] = s.rowsRead;
  j["rows_skipped"] = s.rowsSkipped;
  j["positions"] = {{"total", s.positions}, {"real", s.realPositions}, {"padding", s.paddingPositions}};
  j["graded"] = {{"total", s.graded},
                 {"padding", s.gradedPadding},
                 {"prompt", s.gradedPrompt},
                 {"reply", s.gradedReply},
                 {"unknown_role", s.gradedUnknown},
                 {"fraction_of_real", share(s.graded - s.gradedPadding, s.realPositions)},
                 {"padding_share", share(s.gradedPadding, s.graded)},
                 {"prompt_share", share(s.gradedPrompt, s.graded)},
                 {"reply_share", share(s.gradedReply, s.graded)},
                 {"fraction_histogram", s.gradedFractionHistogram}};
  j["rows_nothing_graded"] = s.rowsNothingGraded;
  j["length"] = {{"min", std::max<int64_t>(s.lengthMin, 0)},
                 {"max", s.lengthMax},
                 {"sum", s.lengthSum},
                 {"mean", s.rows > 0 ? json(double(s.lengthSum) / double(s.rows)) : json(nullptr)},
                 {"max_length", s.maxLength},
                 {"over_max_length", s.rowsOverMaxLength},
                 {"truncated", s.rowsTruncated},
                 {"histogram_quarters_of_max_length", s.lengthHistogram}};
  j["grad_accum"] = gradAccumToJson(s.gradAccum);
  return j;
}

json findingToJson(const Finding& f) {
  json j;
  j["rule"] = f.rule;
  j["severity"] = severityName(f.severity);
  j["row"] = f.row ? json(*f.row) : json(nullptr);
  j["position"] = f.position ? json(*f.position) : json(nullptr);
  j["message"] = f.message;
  j["scope"] = scopeName(f.scope);
  if (f.line) j["line"] = *f.line;
  if (f.item) j["item"] = *f.item;
  return j;
}

json reportToJson(const LintReport& report) {
  json j;
  j["findings"] = json::array();
  for (const Finding& f : report.findings) j["findings"].push_back(findingToJson(f));
  j["summary"] = summaryToJson(report.summary);
  return j;
}

json shardReportJson(const LintReport& report, int index, int count, const json& settings) {
  json j = reportToJson(report);
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

// ---- reader ----------------------------------------------------------------------------------

namespace {

// Summary keys the reader knows (derived ones are recomputed). A report with another key comes
// from another maskscope version: refused rather than merged wrongly.
const std::set<std::string> kSummaryKeys = {"rows",
                                            "batch_rows",
                                            "errors",
                                            "warnings",
                                            "infos",
                                            "scopes",
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

std::string text(const json& j, const char* key, const std::string& path) {
  if (!j.contains(key)) return {};
  const json& v = j.at(key);
  if (!v.is_string()) throw bad(path, std::string("\"") + key + "\" is not text");
  return v.get<std::string>();
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
  if (j.contains("item") && j["item"].is_number_integer()) f.item = j["item"].get<long>();
  const std::string scope = text(j, "scope", path);
  if (scope != "data" && scope != "settings") throw bad(path, "a finding has scope \"" + scope + "\"");
  f.scope = scope == "data" ? Scope::Data : Scope::Settings;
  return f;
}

void countsFromJson(const json& s, LintSummary& o, const std::string& p) {
  o.rows = number<long>(s, "rows", p);
  o.batchRows = number<long>(s, "batch_rows", p);
  o.errors = number<long>(s, "errors", p);
  o.warnings = number<long>(s, "warnings", p);
  o.infos = number<long>(s, "infos", p);
  const json& data = field(field(s, "scopes", p), "data", p);
  o.dataErrors = number<long>(data, "errors", p);
  o.dataWarnings = number<long>(data, "warnings", p);
  o.dataInfos = number<long>(data, "infos", p);
  const json& input = field(s, "input", p);
  if (input != "dataset") throw bad(p, "its input is not a dataset");
  o.input = "dataset";
  o.source = text(s, "source", p);
  o.shard = text(s, "shard", p);
  o.findingsShown = number<long>(s, "findings_shown", p);
  o.findingsOmitted = number<long>(s, "findings_omitted", p);
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

} // namespace

ShardReport shardReportFromJson(const ShardFile& f) {
  const std::string& p = f.path;
  ShardReport s;
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
  const json& batches = field(sh, "micro_batches", p);
  if (!batches.is_array()) throw bad(p, "\"micro_batches\" is not a list");
  for (const json& mb : batches) {
    if (!mb.is_array() || mb.size() != 2 || !mb[0].is_number_integer() || !mb[1].is_number_integer())
      throw bad(p, "\"micro_batches\" holds something other than [index, graded]");
    r.microBatchIndex.push_back(mb[0].get<long>());
    r.summary.gradAccum.perMicroBatch.push_back(mb[1].get<int64_t>());
  }
  r.fullSequenceRows = number<long>(sh, "full_sequence_rows", p);
  return s;
}

ShardFile readShardFile(const std::string& path) {
  ShardFile f;
  f.path = path;
  const std::string content = readFileCapped(path);
  try {
    f.json = parseJsonOrThrow(content, SourceLocation{path});
  } catch (const Error& e) {
    throw bad(path, std::string("not JSON (") + e.what() + ")");
  }
  return f;
}

} // namespace maskscope
