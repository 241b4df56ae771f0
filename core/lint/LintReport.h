// A lint run's result: the findings (capped, in input order) and a summary that counts every
// finding plus dataset statistics. Summaries of shards merge by addition (see merge()). Its JSON,
// both ways, is core/lint/ReportJson.h; the terminal report core/lint/TextReport.h.
#pragma once
#include "core/lint/LintTypes.h"

#include <array>
#include <climits>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

// Micro-batches whose graded-token counts are kept for the exact weight_misallocation.
constexpr size_t kMaxMicroBatchesKept = size_t(1) << 22;
// Where a dataset finding sits among the micro-batches: template checks come before the first,
// dataset-wide infos (full-sequence-labels) after the last.
constexpr long kBeforeMicroBatches = -1;
constexpr long kAfterMicroBatches = LONG_MAX;

// Gradient-accumulation normalisation: each micro-batch's loss is a mean over its own graded
// tokens; averaging micro-batch means gives a token in a micro-batch with n graded tokens the weight
// 1 / (k * n) instead of the token-weighted 1 / N. With equal per-token loss both means agree, so
// the gap is reported as the difference of the weights themselves.
struct GradAccumStats {
  int microBatchSize = 8;
  long microBatches = 0;                 // micro-batches with at least one row
  long emptyMicroBatches = 0;            // micro-batches with no graded token (NaN loss)
  int64_t gradedTokens = 0;              // N
  int64_t minTokens = -1, maxTokens = 0; // graded tokens per non-empty micro-batch
  double sumInverseTokens = 0;           // sum over non-empty micro-batches of 1 / n_i
  std::vector<int64_t> perMicroBatch;    // graded tokens of each micro-batch (capped, for the TV distance)
  bool perMicroBatchComplete = true;

  void add(int64_t graded);
  void merge(const GradAccumStats& o);

  // The derived figures (null in the JSON when no micro-batch has a graded token): the weight of
  // a token of the smallest / largest micro-batch relative to the token-weighted mean, and the
  // share of the gradient weight the mean of micro-batch means misplaces (total variation).
  struct Weights {
    std::optional<double> maxTokenRatio, minTokenRatio, misallocation;
  };
  Weights weights() const;
};

struct LintSummary {
  std::string input;                        // "dataset" or "batch"
  std::string source;                       // INPUT as given (the merge: the shards' dataset); "" = not written
  std::string shard;                        // "K/N" of a shard report, else ""
  long rows = 0;                            // examples linted: dataset rows, or the examples of a dump's rows
  long batchRows = 0;                       // the batch rows they were in (a packed row holds several examples)
  long errors = 0, warnings = 0, infos = 0; // every finding, including those beyond --max-findings
  long dataErrors = 0, dataWarnings = 0, dataInfos = 0; // of those, scope data (the rest: settings)
  long findingsShown = 0, findingsOmitted = 0;
  std::map<std::string, long> findingsByRule;
  std::vector<std::string> rulesNotRun;

  // Dataset reading.
  long rowsRead = 0, rowsSkipped = 0;
  // Positions (after collation, per example; padding counted per batch row).
  int64_t positions = 0, realPositions = 0, paddingPositions = 0;
  int64_t graded = 0, gradedPadding = 0, gradedPrompt = 0, gradedReply = 0, gradedUnknown = 0;
  long rowsNothingGraded = 0;
  std::array<long, 10> gradedFractionHistogram{}; // per example: graded / real tokens, 10 bins of 0.1
  // Lengths of the tokenized examples (before padding), against max_length.
  int64_t lengthMin = -1, lengthMax = 0, lengthSum = 0;
  int maxLength = 0; // the collator's max_length (0 when unknown)
  long rowsOverMaxLength = 0, rowsTruncated = 0;
  std::array<long, 8> lengthHistogram{}; // bins of max_length/4: [0,1/4) ... [7/4, inf) of max_length
  GradAccumStats gradAccum;

  void countFinding(const Finding& f);
  void addLength(int64_t length);
  void addGradedFraction(int64_t graded, int64_t real);
  void merge(const LintSummary& o); // sums counts; min/max combine; rules_not_run unite
};

struct LintReport {
  std::vector<Finding> findings; // in input order, at most maxFindings
  LintSummary summary;
  // Dataset runs only: the trace that lets shard reports merge in the unsharded order
  // (core/lint/ReportMerge.h). Per finding, the index of its micro-batch in the whole dataset
  // (or kBefore/kAfterMicroBatches); per entry of summary.gradAccum.perMicroBatch, its index.
  std::vector<long> findingMicroBatch;
  std::vector<long> microBatchIndex;
  long fullSequenceRows = 0; // rows grading the prompt too (the full-sequence-labels info)
  bool hasErrors() const { return summary.errors > 0; }
};

// A finding of a registered rule: severity (unless given) and scope from the rule catalogue.
Finding makeFinding(const std::string& rule, std::optional<int64_t> row, std::optional<int64_t> position,
                    std::string message, std::optional<Severity> severity = std::nullopt);

// Collects findings in order with a cap, counting all of them in the summary. A sink, when set,
// sees every finding (also those beyond the cap) in the order they are added (--findings-out).
class FindingCollector {
public:
  explicit FindingCollector(LintReport& report, long maxFindings = -1) : report_(report), max_(maxFindings) {}
  void add(Finding f); // sets f.scope from the rule
  void add(const std::string& rule, std::optional<int64_t> row, std::optional<int64_t> position, std::string message,
           std::optional<Severity> severity = std::nullopt);
  void setSink(std::function<void(const Finding&)> sink) { sink_ = std::move(sink); }
  LintReport& report() { return report_; }

private:
  LintReport& report_;
  long max_;
  std::function<void(const Finding&)> sink_;
};

} // namespace maskscope
