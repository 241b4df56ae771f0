// Summary arithmetic and the JSON shape of a lint report (the fields docs/cli.md documents for `lint`).
#include "core/lint/LintReport.h"

#include <algorithm>
#include <cmath>

namespace maskscope {

void GradAccumStats::add(int64_t graded) {
  ++microBatches;
  if (graded == 0) {
    ++emptyMicroBatches;
  } else {
    gradedTokens += graded;
    minTokens = minTokens < 0 ? graded : std::min(minTokens, graded);
    maxTokens = std::max(maxTokens, graded);
    sumInverseTokens += 1.0 / double(graded);
  }
  if (perMicroBatch.size() < kMaxMicroBatchesKept)
    perMicroBatch.push_back(graded);
  else
    perMicroBatchComplete = false;
}

void GradAccumStats::merge(const GradAccumStats& o) {
  microBatches += o.microBatches;
  emptyMicroBatches += o.emptyMicroBatches;
  gradedTokens += o.gradedTokens;
  if (o.minTokens >= 0) minTokens = minTokens < 0 ? o.minTokens : std::min(minTokens, o.minTokens);
  maxTokens = std::max(maxTokens, o.maxTokens);
  sumInverseTokens += o.sumInverseTokens;
  for (int64_t n : o.perMicroBatch) {
    if (perMicroBatch.size() < kMaxMicroBatchesKept)
      perMicroBatch.push_back(n);
    else
      perMicroBatchComplete = false;
  }
  perMicroBatchComplete = perMicroBatchComplete && o.perMicroBatchComplete;
}

nlohmann::json GradAccumStats::toJson() const {
  nlohmann::json j;
  j["micro_batch_size"] = microBatchSize;
  j["micro_batches"] = microBatches;
  j["empty_micro_batches"] = emptyMicroBatches;
  j["graded_tokens"] = gradedTokens;
  j["graded_per_micro_batch_min"] = std::max<int64_t>(minTokens, 0);
  j["graded_per_micro_batch_max"] = maxTokens;
  const long k = microBatches - emptyMicroBatches;
  if (k > 0 && gradedTokens > 0) {
    const double N = double(gradedTokens);
    // Weight of one token under the mean of micro-batch means, relative to the token-weighted mean.
    j["max_token_weight_ratio"] = N / (double(k) * double(minTokens));
    j["min_token_weight_ratio"] = N / (double(k) * double(maxTokens));
    // Total-variation distance between the two weightings: the share of the gradient that the
    // mean of means moves from tokens of large micro-batches to tokens of small ones.
    double tv = 0;
    for (int64_t n : perMicroBatch)
      if (n > 0) tv += std::fabs(1.0 / double(k) - double(n) / N);
    j["weight_misallocation"] = 0.5 * tv;
    j["weight_misallocation_exact"] = perMicroBatchComplete;
  } else {
    j["max_token_weight_ratio"] = nullptr;
    j["min_token_weight_ratio"] = nullptr;
    j["weight_misallocation"] = nullptr;
  }
  return j;
}

void LintSummary::countFinding(const Finding& f) {
  switch (f.severity) {
  case Severity::Error:
    ++errors;
    break;
  case Severity::Warning:
    ++warnings;
    break;
  case Severity::Info:
    ++infos;
    break;
  }
  ++findingsByRule[f.rule];
}

void LintSummary::addLength(int64_t len) {
  lengthMin = lengthMin < 0 ? len : std::min(lengthMin, len);
  lengthMax = std::max(lengthMax, len);
  lengthSum += len;
  if (maxLength > 0) {
    if (len > maxLength) ++rowsOverMaxLength;
    size_t bin = size_t(std::min<int64_t>(7, len * 4 / maxLength));
    ++lengthHistogram[bin];
  }
}

void LintSummary::addGradedFraction(int64_t g, int64_t real) {
  if (real <= 0) return;
  size_t bin = size_t(std::min<int64_t>(9, g * 10 / real));
  ++gradedFractionHistogram[bin];
}

void LintSummary::merge(const LintSummary& o) {
  if (input.empty()) input = o.input;
  rows += o.rows;
  errors += o.errors;
  warnings += o.warnings;
  infos += o.infos;
  findingsShown += o.findingsShown;
  findingsOmitted += o.findingsOmitted;
  for (const auto& [k, v] : o.findingsByRule) findingsByRule[k] += v;
  for (const auto& r : o.rulesNotRun)
    if (std::find(rulesNotRun.begin(), rulesNotRun.end(), r) == rulesNotRun.end()) rulesNotRun.push_back(r);
  rowsRead += o.rowsRead;
  rowsSkipped += o.rowsSkipped;
  positions += o.positions;
  realPositions += o.realPositions;
  paddingPositions += o.paddingPositions;
  graded += o.graded;
  gradedPadding += o.gradedPadding;
  gradedPrompt += o.gradedPrompt;
  gradedReply += o.gradedReply;
  gradedUnknown += o.gradedUnknown;
  rowsNothingGraded += o.rowsNothingGraded;
  for (size_t i = 0; i < gradedFractionHistogram.size(); ++i)
    gradedFractionHistogram[i] += o.gradedFractionHistogram[i];
  if (o.lengthMin >= 0) lengthMin = lengthMin < 0 ? o.lengthMin : std::min(lengthMin, o.lengthMin);
  lengthMax = std::max(lengthMax, o.lengthMax);
  lengthSum += o.lengthSum;
  maxLength = std::max(maxLength, o.maxLength);
  rowsOverMaxLength += o.rowsOverMaxLength;
  rowsTruncated += o.rowsTruncated;
  for (size_t i = 0; i < lengthHistogram.size(); ++i) lengthHistogram[i] += o.lengthHistogram[i];
  gradAccum.merge(o.gradAccum);
}

static nlohmann::json share(int64_t part, int64_t whole) {
  return whole > 0 ? nlohmann::json(double(part) / double(whole)) : nlohmann::json(nullptr);
}

nlohmann::json LintSummary::toJson() const {
  nlohmann::json j;
  j["rows"] = rows;
  j["errors"] = errors;
  j["warnings"] = warnings;
  j["infos"] = infos;
  j["input"] = input;
  j["findings_shown"] = findingsShown;
  j["findings_omitted"] = findingsOmitted;
  j["findings_by_rule"] = findingsByRule;
  j["rules_not_run"] = rulesNotRun;
  j["rows_read"] = rowsRead;
  j["rows_skipped"] = rowsSkipped;
  j["positions"] = {{"total", positions}, {"real", realPositions}, {"padding", paddingPositions}};
  j["graded"] = {{"total", graded},
                 {"padding", gradedPadding},
                 {"prompt", gradedPrompt},
                 {"reply", gradedReply},
                 {"unknown_role", gradedUnknown},
                 {"fraction_of_real", share(graded - gradedPadding, realPositions)},
                 {"padding_share", share(gradedPadding, graded)},
                 {"prompt_share", share(gradedPrompt, graded)},
                 {"reply_share", share(gradedReply, graded)},
                 {"fraction_histogram", gradedFractionHistogram}};
  j["rows_nothing_graded"] = rowsNothingGraded;
  j["length"] = {{"min", std::max<int64_t>(lengthMin, 0)},
                 {"max", lengthMax},
                 {"sum", lengthSum},
                 {"mean", rows > 0 ? nlohmann::json(double(lengthSum) / double(rows)) : nlohmann::json(nullptr)},
                 {"max_length", maxLength},
                 {"over_max_length", rowsOverMaxLength},
                 {"truncated", rowsTruncated},
                 {"histogram_quarters_of_max_length", lengthHistogram}};
  j["grad_accum"] = gradAccum.toJson();
  return j;
}

nlohmann::json findingToJson(const Finding& f) {
  nlohmann::json j;
  j["rule"] = f.rule;
  j["severity"] = severityName(f.severity);
  j["row"] = f.row ? nlohmann::json(*f.row) : nlohmann::json(nullptr);
  j["position"] = f.position ? nlohmann::json(*f.position) : nlohmann::json(nullptr);
  j["message"] = f.message;
  if (f.line) j["line"] = *f.line;
  return j;
}

nlohmann::json LintReport::toJson() const {
  nlohmann::json j;
  j["findings"] = nlohmann::json::array();
  for (const Finding& f : findings) j["findings"].push_back(findingToJson(f));
  j["summary"] = summary.toJson();
  return j;
}

void FindingCollector::add(Finding f) {
  report_.summary.countFinding(f);
  if (max_ >= 0 && long(report_.findings.size()) >= max_) {
    ++report_.summary.findingsOmitted;
    return;
  }
  ++report_.summary.findingsShown;
  report_.findings.push_back(std::move(f));
}

void FindingCollector::add(const std::string& rule, std::optional<int64_t> row, std::optional<int64_t> position,
                           std::string message, std::optional<Severity> severity) {
  const RuleInfo* info = findRule(rule);
  Finding f;
  f.rule = rule;
  f.severity = severity ? *severity : info ? info->severity : Severity::Warning;
  f.row = row;
  f.position = position;
  f.message = std::move(message);
  add(std::move(f));
}

} // namespace maskscope
