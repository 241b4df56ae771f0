// Verdicts of train-ab runs (see TrainVerdict.h): the metric of each run, the prediction, and the
// sentence, written from the numbers whether or not the effect appeared.
#include "core/train/TrainVerdict.h"
#include "core/train/TrainReport.h"

#include <cmath>
#include <cstdio>

namespace maskscope {
namespace {

std::string num(double v, const char* f) {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

size_t stopped(const TrainRunResult& r) {
  size_t n = 0;
  for (const GenerationRecord& g : r.generations) n += g.stopped;
  return n;
}

TrainVerdict stopVerdict(const TrainReport& rep) {
  TrainVerdict v;
  v.metric = "stop_fraction";
  v.a = stopFraction(rep.runs[0]);
  v.b = stopFraction(rep.runs[1]);
  v.expected = "run B's stop_fraction at least " + num(kStopGap, "%.1f") + " higher than run A's";
  v.observed = std::isfinite(v.a) && std::isfinite(v.b) && v.b - v.a >= kStopGap - 1e-9;
  const std::string of = " of " + std::to_string(rep.runs[0].generations.size());
  const std::string numbers = "run A's generations ended with the end-of-turn token on " +
                              std::to_string(stopped(rep.runs[0])) + of + " held-out prompts (stop_fraction " +
                              num(v.a, "%.2f") + "), run B's on " + std::to_string(stopped(rep.runs[1])) + of + " (" +
                              num(v.b, "%.2f") + ")";
  v.text = v.observed ? "As predicted, " + numbers + ": run A was never graded on the end-of-turn token."
                      : "The effect did not appear this time: " + numbers + "; the prediction was " + v.expected + ".";
  return v;
}

TrainVerdict lossVerdict(const TrainReport& rep) {
  TrainVerdict v;
  v.metric = "final_held_out_loss";
  const auto& ha = rep.runs[0].heldOut;
  const auto& hb = rep.runs[1].heldOut;
  v.a = ha.empty() ? NAN : ha.back().loss;
  v.b = hb.empty() ? NAN : hb.back().loss;
  const double bFirst = hb.empty() ? NAN : hb.front().loss;
  v.expected = "run A's final held-out loss higher than run B's, and run B's lower at its last evaluation than "
               "at its first";
  const bool gap = v.a > v.b;
  const bool falls = hb.size() >= 2 && v.b < bFirst;
  v.observed = gap && falls;
  const std::string numbers = "run A ends with a held-out loss of " + num(v.a, "%.3f") +
                              " on real replies, run B with " + num(v.b, "%.3f") +
                              " (its first evaluation: " + num(bFirst, "%.3f") + ")";
  if (v.observed)
    v.text = "As predicted, " + numbers + ": run B learned the replies better, " + num(v.a - v.b, "%.3f") + " lower.";
  else
    v.text = "The effect did not appear this time: " + numbers + "; " +
             (gap ? std::string("run B's held-out loss did not fall") : "run A's is not higher than run B's") +
             " (the prediction was " + v.expected + ").";
  return v;
}

} // namespace

std::optional<TrainVerdict> trainVerdict(TrainOutcome outcome, const TrainReport& report) {
  switch (outcome) {
  case TrainOutcome::StopFraction:
    return stopVerdict(report);
  case TrainOutcome::HeldOutLossGap:
    return lossVerdict(report);
  case TrainOutcome::None:
    break;
  }
  return std::nullopt;
}

nlohmann::json trainVerdictJson(const std::optional<TrainVerdict>& v) {
  if (!v) return nullptr;
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"metric", v->metric},     {"a", number(v->a)},       {"b", number(v->b)},
          {"expected", v->expected}, {"observed", v->observed}, {"text", v->text}};
}

} // namespace maskscope
