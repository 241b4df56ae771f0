// Exposure bias on the held-out replies (see ExposureBias.h): position-by-position comparison of the
// reference reply with the greedy generation and with the teacher-forced argmaxes, pooled per run.
#include "core/train/ExposureBias.h"
#include "core/train/TrainPlan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace maskscope {

ReplyExposure compareReply(const std::vector<int64_t>& reference, const std::vector<int64_t>& generated,
                           const std::vector<int64_t>& teacherForced) {
  ReplyExposure r;
  const int64_t n = int64_t(reference.size());
  r.referenceTokens = n;
  const bool forced = teacherForced.size() == reference.size();
  auto generatedAt = [&](int64_t k) {
    return k < int64_t(generated.size()) && generated[size_t(k)] == reference[size_t(k)];
  };
  auto forcedAt = [&](int64_t k) { return forced && teacherForced[size_t(k)] == reference[size_t(k)]; };
  r.firstDivergence = n;
  for (int64_t k = 0; k < n; ++k)
    if (!generatedAt(k)) {
      r.firstDivergence = k;
      break;
    }
  for (int64_t k = 0; k < n; ++k) {
    r.teacherForcedCorrect += forcedAt(k);
    r.freeRunningCorrect += generatedAt(k);
    if (k <= r.firstDivergence) continue;
    ++r.afterPositions;
    r.teacherForcedAfter += forcedAt(k);
    r.freeRunningAfter += generatedAt(k);
  }
  return r;
}

namespace {
double share(int64_t part, int64_t whole) { return whole > 0 ? double(part) / double(whole) : NAN; }
} // namespace

double ExposureBias::teacherForcedAccuracy() const { return share(teacherForcedCorrect, referenceTokens); }
double ExposureBias::freeRunningAccuracy() const { return share(freeRunningCorrect, referenceTokens); }
double ExposureBias::teacherForcedAfterAccuracy() const { return share(teacherForcedAfter, afterPositions); }
double ExposureBias::freeRunningAfterAccuracy() const { return share(freeRunningAfter, afterPositions); }

ExposureBias exposureBias(const TrainRunResult& run, const std::vector<std::vector<int64_t>>& references,
                          const std::vector<long>& rows) {
  ExposureBias e;
  std::vector<int64_t> divergences;
  for (size_t i = 0; i < run.generations.size() && i < references.size(); ++i) {
    const GenerationRecord& g = run.generations[i];
    if (references[i].empty() || g.teacherForced.size() != references[i].size()) continue;
    ReplyExposure r = compareReply(references[i], g.tokens, g.teacherForced);
    r.row = i < rows.size() ? rows[i] : long(i);
    e.referenceTokens += r.referenceTokens;
    e.teacherForcedCorrect += r.teacherForcedCorrect;
    e.freeRunningCorrect += r.freeRunningCorrect;
    e.afterPositions += r.afterPositions;
    e.teacherForcedAfter += r.teacherForcedAfter;
    e.freeRunningAfter += r.freeRunningAfter;
    e.reproduced += r.firstDivergence == r.referenceTokens;
    divergences.push_back(r.firstDivergence);
    e.replies.push_back(r);
  }
  std::sort(divergences.begin(), divergences.end());
  const size_t m = divergences.size();
  e.medianFirstDivergence = m == 0  ? NAN
                            : m % 2 ? double(divergences[m / 2])
                                    : 0.5 * double(divergences[m / 2 - 1] + divergences[m / 2]);
  return e;
}

nlohmann::json exposureJson(const ExposureBias& e) {
  using nlohmann::json;
  json replies = json::array();
  for (const ReplyExposure& r : e.replies)
    replies.push_back({{"row", r.row},
                       {"reference_tokens", r.referenceTokens},
                       {"teacher_forced_correct", r.teacherForcedCorrect},
                       {"free_running_correct", r.freeRunningCorrect},
                       {"first_divergence", r.firstDivergence},
                       {"after_positions", r.afterPositions},
                       {"teacher_forced_after", r.teacherForcedAfter},
                       {"free_running_after", r.freeRunningAfter}});
  return {{"replies", e.replies.size()},
          {"reference_tokens", e.referenceTokens},
          {"teacher_forced_accuracy", e.teacherForcedAccuracy()},
          {"free_running_accuracy", e.freeRunningAccuracy()},
          {"median_first_divergence", e.medianFirstDivergence},
          {"reproduced", e.reproduced},
          {"after_divergence",
           {{"positions", e.afterPositions},
            {"teacher_forced_accuracy", e.teacherForcedAfterAccuracy()},
            {"free_running_accuracy", e.freeRunningAfterAccuracy()}}},
          {"per_reply", replies},
          {"text", exposureSentence(e)}};
}

namespace {
std::string percent(double v) {
  if (std::isnan(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * v);
  return buf;
}
std::string number(double v) {
  if (std::isnan(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, v == std::floor(v) ? "%.0f" : "%.1f", v);
  return buf;
}
} // namespace

std::string exposureSentence(const ExposureBias& e) {
  if (e.replies.empty()) return "no held-out reply to compare with";
  std::string s = "teacher-forced it picks " + percent(e.teacherForcedAccuracy()) +
                  " of the held-out replies' next tokens (" + std::to_string(e.teacherForcedCorrect) + " of " +
                  std::to_string(e.referenceTokens) + "); reading its own output it follows the reply for " +
                  number(e.medianFirstDivergence) + " tokens (median over " + std::to_string(e.replies.size()) +
                  " replies)";
  if (e.afterPositions == 0)
    return s + ", leaving it at its last token or not at all (it reproduces " + std::to_string(e.reproduced) +
           " of them exactly)";
  return s + ", then leaves it and matches " + percent(e.freeRunningAfterAccuracy()) +
         " of the reply's tokens after that, where teacher-forced it picks " + percent(e.teacherForcedAfterAccuracy()) +
         " of the same tokens";
}

ExposureReport exposureReport(const TrainABPlan& plan, const TrainReport& report) {
  ExposureReport r;
  r.experiment = plan.experiment;
  r.steps = plan.args.steps > 0 ? plan.args.steps : kDefaultTrainSteps;
  for (int k = 0; k < 2; ++k) {
    r.collator[k] = plan.collator[k];
    r.runs[k] = exposureBias(report.runs[k], plan.request.generation.references, plan.generationRows);
  }
  return r;
}

} // namespace maskscope
