// Summary arithmetic of a lint report: counting findings, lengths and graded fractions, merging
// shard summaries, and the gradient-accumulation weights. The JSON is in ReportJson.cpp.
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

GradAccumStats::Weights GradAccumStats::weights() const {
  Weights w;
  const long k = microBatches - emptyMicroBatches;
  if (k <= 0 || gradedTokens <= 0) return w;
  const double N = double(gradedTokens);
  // Weight of one token under the mean of micro-batch means, relative to the token-weighted mean.
  w.maxTokenRatio = N / (double(k) * double(minTokens));
  w.minTokenRatio = N / (double(k) * double(maxTokens));
  // Total-variation distance between the two weightings: the share of the gradient that the
  // mean of means moves from tokens of large micro-batches to tokens of small ones.
  double tv = 0;
  for (int64_t n : perMicroBatch)
    if (n > 0) tv += std::fabs(1.0 / double(k) - double(n) / N);
  w.misallocation = 0.5 * tv;
  return w;
}

void LintSummary::countFinding(const Finding& f) {
  const bool data = f.scope == Scope::Data;
  switch (f.severity) {
  case Severity::Error:
    ++errors;
    dataErrors += data;
    break;
  case Severity::Warning:
    ++warnings;
    dataWarnings += data;
    break;
  case Severity::Info:
    ++infos;
    dataInfos += data;
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
  if (source.empty()) source = o.source;
  rows += o.rows;
  batchRows += o.batchRows;
  errors += o.errors;
  warnings += o.warnings;
  infos += o.infos;
  dataErrors += o.dataErrors;
  dataWarnings += o.dataWarnings;
  dataInfos += o.dataInfos;
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

Finding makeFinding(const std::string& rule, std::optional<int64_t> row, std::optional<int64_t> position,
                    std::string message, std::optional<Severity> severity) {
  const RuleInfo* info = findRule(rule);
  Finding f;
  f.rule = rule;
  f.severity = severity ? *severity : info ? info->severity : Severity::Warning;
  f.row = row;
  f.position = position;
  f.message = std::move(message);
  f.scope = info ? info->scope : Scope::Settings;
  return f;
}

void FindingCollector::add(Finding f) {
  if (const RuleInfo* info = findRule(f.rule)) f.scope = info->scope;
  report_.summary.countFinding(f);
  if (sink_) sink_(f);
  if (max_ >= 0 && long(report_.findings.size()) >= max_) {
    ++report_.summary.findingsOmitted;
    return;
  }
  ++report_.summary.findingsShown;
  report_.findings.push_back(std::move(f));
}

void FindingCollector::add(const std::string& rule, std::optional<int64_t> row, std::optional<int64_t> position,
                           std::string message, std::optional<Severity> severity) {
  add(makeFinding(rule, row, position, std::move(message), severity));
}

} // namespace maskscope
