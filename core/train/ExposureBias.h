// Exposure bias, measured on the held-out replies after training: teacher-forced, the model reads the
// true reply and its argmax is scored at every position (as training grades it); free-running, the
// greedy generation reads its own output, so after its first wrong token it continues from a prefix
// it never saw in training. Computed here from the module's generations and teacher-forced argmaxes.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace maskscope {

struct TrainABPlan;

// One held-out reply of n reference tokens (the reply through its closing token).
struct ReplyExposure {
  long row = -1;                    // dataset row
  int64_t referenceTokens = 0;      // n
  int64_t teacherForcedCorrect = 0; // positions k < n whose teacher-forced argmax is reference[k]
  int64_t freeRunningCorrect = 0;   // positions k < n where the generation's token k is reference[k]
  // First k where the generation differs from the reference or has ended; n when it reproduces the
  // reply. Before it the generation read the true prefix, so it equals the first teacher-forced miss.
  int64_t firstDivergence = 0;
  int64_t afterPositions = 0;     // reference positions after the first divergence: k in (d, n)
  int64_t teacherForcedAfter = 0; // of those, teacher-forced correct (the true prefix read)
  int64_t freeRunningAfter = 0;   // of those, generation[k] == reference[k] (its own prefix read)
};

// reference, the greedy generation and the teacher-forced argmaxes (one per reference token, or empty:
// then nothing is scored teacher-forced) compared position by position.
ReplyExposure compareReply(const std::vector<int64_t>& reference, const std::vector<int64_t>& generated,
                           const std::vector<int64_t>& teacherForced);

// Pooled over the replies of one run: every share is a count over all their positions; NaN with none.
struct ExposureBias {
  std::vector<ReplyExposure> replies;
  int64_t referenceTokens = 0, teacherForcedCorrect = 0, freeRunningCorrect = 0;
  int64_t afterPositions = 0, teacherForcedAfter = 0, freeRunningAfter = 0;
  int64_t reproduced = 0;               // replies generated exactly (firstDivergence == n)
  double medianFirstDivergence = 0;     // over the replies (the mean of the middle two when even); NaN with none
  double teacherForcedAccuracy() const; // teacherForcedCorrect / referenceTokens
  double freeRunningAccuracy() const;   // freeRunningCorrect / referenceTokens
  double teacherForcedAfterAccuracy() const;
  double freeRunningAfterAccuracy() const;
};

// The replies of one run: generations[i] against references[i] (rows[i] its dataset row); prompts
// without a reference or teacher-forced argmaxes are left out.
ExposureBias exposureBias(const TrainRunResult& run, const std::vector<std::vector<int64_t>>& references,
                          const std::vector<long>& rows);

// The "exposure" field of a run in train-ab --json (docs/cli.md), with its sentence under "text".
nlohmann::json exposureJson(const ExposureBias& e);
// "teacher-forced it picks 62% of the held-out replies' next tokens (340 of 548); reading its own
// output it follows the reply for 3 tokens (median over 7 replies), then leaves it and matches 18% of
// the reply's tokens after that, where teacher-forced it picks 55% of the same tokens".
std::string exposureSentence(const ExposureBias& e);

// Both runs of a finished train-ab, as the Training lab hands them to the teaching steps.
struct ExposureReport {
  std::string experiment;
  std::string collator[2];
  int64_t steps = 0;
  ExposureBias runs[2];
};
ExposureReport exposureReport(const TrainABPlan& plan, const TrainReport& report);

} // namespace maskscope
