// Verdicts of train-ab runs (see TrainVerdict.h): the metric of each run, the prediction, and the
// sentence, written from the numbers whether or not the effect appeared.
#include "core/train/TrainVerdict.h"
#include "core/train/TrainReport.h"

#include <cmath>
#include <cstdio>

namespace maskscope {
namespace {

// The thresholds of the predictions (docs/cli.md, train-ab).
// Nats: run B gives the closing token at least e^2 (7.4) times run A's probability after the true reply.
// Measured with the defaults on builtin:tiny, seeds 0-4: the table in docs/cli.md.
constexpr double kEndOfTurnGap = 2.0;
// Nats, mean over steps of |accumulated loss - full-batch loss|. The tolerance is float rounding of
// summing a few micro-batches (3.5e-8 measured) with a wide margin; the gap is what uneven micro-batches
// of the demo data produce (0.14 over 6 steps, seed 0), far above either.
constexpr double kAccumulationGap = 0.005;
constexpr double kAccumulationTolerance = 1e-4;
// Nats, |mean held-out loss packed as the run trains - the same replies alone| after training. Run B's
// is float rounding (block-diagonal attention computes the same sums in other shapes: 5.5e-7 measured);
// run A's is small in a mean over every reply token of this small model (0.0015-0.0074 after 10 steps,
// seeds 0-2) but thousands of times that rounding.
constexpr double kPackingLeak = 1e-3;
constexpr double kLayoutTolerance = 1e-4;

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

// Run B (correct) should learn the replies: its held-out loss at the last evaluation below the first.
bool heldOutFalls(const TrainRunResult& r) {
  return r.heldOut.size() >= 2 && r.heldOut.back().loss < r.heldOut.front().loss;
}

// "went from 7.949 to 7.572", or where the curve dips and rises again (what its chart shows): "fell
// from 7.949 to its lowest, 7.512 at step 6, then rose to 7.572 at step 10". A rise shows when it is
// visible in the three decimals the sentence prints.
std::string heldOutPath(const TrainRunResult& r) {
  if (r.heldOut.empty()) return "went from n/a to n/a";
  const HeldOutRecord& first = r.heldOut.front();
  const HeldOutRecord& last = r.heldOut.back();
  size_t low = 0;
  for (size_t i = 1; i < r.heldOut.size(); ++i)
    if (r.heldOut[i].loss < r.heldOut[low].loss) low = i;
  const HeldOutRecord& min = r.heldOut[low];
  if (low == 0 || low + 1 == r.heldOut.size() || last.loss - min.loss < 5e-4)
    return "went from " + num(first.loss, "%.3f") + " to " + num(last.loss, "%.3f");
  return "fell from " + num(first.loss, "%.3f") + " to its lowest, " + num(min.loss, "%.3f") + " at step " +
         std::to_string(min.step) + ", then rose to " + num(last.loss, "%.3f") + " at step " +
         std::to_string(last.step);
}

std::string heldOutOfB(const TrainRunResult& r) { return "run B's held-out loss " + heldOutPath(r); }

// The held-out replies a run read teacher-forced, how many it would close (the closing token is the
// argmax after the true reply) and the summed -ln p of that token: one walk for both end-of-turn figures.
struct EndOfTurnTally {
  size_t replies = 0, closed = 0; // replies with a teacher-forced argmax
  size_t scored = 0;              // replies with log-probabilities
  double nllSum = 0;
};

EndOfTurnTally endOfTurnTally(const TrainRunResult& run, const std::vector<std::vector<int64_t>>& references) {
  EndOfTurnTally t;
  for (size_t i = 0; i < run.generations.size() && i < references.size(); ++i) {
    const GenerationRecord& g = run.generations[i];
    const std::vector<int64_t>& ref = references[i]; // ends with the closing token
    if (ref.empty()) continue;
    if (g.teacherForced.size() == ref.size()) {
      ++t.replies;
      t.closed += g.teacherForced.back() == ref.back();
    }
    if (g.teacherForcedLogProb.size() == ref.size()) {
      ++t.scored;
      t.nllSum -= g.teacherForcedLogProb.back();
    }
  }
  return t;
}

TrainVerdict endOfTurnVerdict(const TrainReport& rep, const std::vector<std::vector<int64_t>>& references) {
  TrainVerdict v;
  v.metric = "end_of_turn_nll";
  v.a = endOfTurnNll(rep.runs[0], references);
  v.b = endOfTurnNll(rep.runs[1], references);
  v.expected =
      "run A's end-of-turn token after the true held-out replies at least " + num(kEndOfTurnGap, "%.1f") +
      " nats less likely than run B's, and run B's held-out loss lower at its last evaluation than at its first";
  const bool gap = std::isfinite(v.a) && std::isfinite(v.b) && v.a - v.b >= kEndOfTurnGap;
  v.observed = gap && heldOutFalls(rep.runs[1]);
  const size_t n = rep.runs[0].generations.size();
  const std::string of = " of " + std::to_string(n);
  auto closes = [&](int r) {
    const EndOfTurnTally t = endOfTurnTally(rep.runs[r], references);
    return t.replies > 0 ? std::to_string(t.closed) : std::string("n/a");
  };
  const std::string numbers = "after the true held-out replies (teacher-forced) the end-of-turn token costs run A " +
                              num(v.a, "%.2f") + " nats (p " + num(std::exp(-v.a), "%.2g") +
                              ", its first choice after " + closes(0) + of + " replies) and run B " + num(v.b, "%.2f") +
                              " nats (p " + num(std::exp(-v.b), "%.2g") + ", first choice after " + closes(1) + of +
                              "); generating freely, run A ended " + std::to_string(stopped(rep.runs[0])) + of +
                              " held-out prompts with it, run B " + std::to_string(stopped(rep.runs[1])) + of +
                              "; run A's held-out loss " + heldOutPath(rep.runs[0]) + ", " + heldOutOfB(rep.runs[1]);
  // What "ended" counts: the token came within the budget, whatever was written before it.
  const std::string ended = " A generation ended when the end-of-turn token came within its budget of new tokens; "
                            "what it wrote before that token, an invented next turn included, is not judged: read "
                            "the generations.";
  v.text = v.observed
               ? "As predicted, " + numbers + ": run A was never graded on the end-of-turn token." + ended
               : "The effect did not appear this time: " + numbers + "; the prediction was " + v.expected + "." + ended;
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
  const bool falls = heldOutFalls(rep.runs[1]);
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

TrainVerdict accumulationVerdict(const TrainReport& rep) {
  TrainVerdict v;
  v.metric = "accumulation_gap";
  v.a = accumulationGap(rep.runs[0]);
  v.b = accumulationGap(rep.runs[1]);
  v.expected = "run A's accumulated loss off its full-batch loss by at least " + num(kAccumulationGap, "%.3f") +
               " on average, run B's by less than " + num(kAccumulationTolerance, "%.0e") +
               ", and run B's held-out loss lower at its last evaluation than at its first";
  const bool gapA = v.a >= kAccumulationGap, exactB = v.b < kAccumulationTolerance;
  v.observed = gapA && exactB && heldOutFalls(rep.runs[1]);
  const std::string numbers = "run A's accumulated loss was off the loss of the same full batch by " +
                              num(v.a, "%.4f") + " on average, run B's by " + num(v.b, "%.1e") + "; " +
                              heldOutOfB(rep.runs[1]);
  v.text = v.observed ? "As predicted, " + numbers +
                            ": averaging micro-batch means weighs a token of a short micro-batch more, so run A "
                            "optimised a different loss than the batch it was given."
                      : "The effect did not appear this time: " + numbers + " (the prediction was " + v.expected + ").";
  return v;
}

TrainVerdict packingVerdict(const TrainReport& rep) {
  TrainVerdict v;
  v.metric = "packing_leak";
  v.a = packingLeak(rep.runs[0]);
  v.b = packingLeak(rep.runs[1]);
  v.expected = "the held-out replies packed as run A trains scoring at least " + num(kPackingLeak, "%.3f") +
               " away from the same replies alone, packed as run B trains less than " + num(kLayoutTolerance, "%.0e") +
               " away, and run B's held-out loss lower at its last evaluation "
               "than at its first";
  v.observed = v.a >= kPackingLeak && v.b < kLayoutTolerance && heldOutFalls(rep.runs[1]);
  const std::string numbers = "packed as run A trains, the held-out replies scored " + num(v.a, "%.4f") +
                              " away from their loss alone, packed as run B trains " + num(v.b, "%.1e") + "; " +
                              heldOutOfB(rep.runs[1]);
  v.text = v.observed ? "As predicted, " + numbers +
                            ": without position reset and block mask each example sees the ones before it, so "
                            "run A was graded on tokens it predicted from other conversations."
                      : "The effect did not appear this time: " + numbers + " (the prediction was " + v.expected + ").";
  return v;
}

} // namespace

double packingLeak(const TrainRunResult& run) {
  const double alone = run.heldOut.empty() ? NAN : run.heldOut.back().loss;
  return std::fabs(run.heldOutAsTrainedLoss - alone); // NaN stays NaN
}

double closesReplyShare(const TrainRunResult& run, const std::vector<std::vector<int64_t>>& references) {
  const EndOfTurnTally t = endOfTurnTally(run, references);
  return t.replies > 0 ? double(t.closed) / double(t.replies) : NAN;
}

double endOfTurnNll(const TrainRunResult& run, const std::vector<std::vector<int64_t>>& references) {
  const EndOfTurnTally t = endOfTurnTally(run, references);
  return t.scored > 0 ? t.nllSum / double(t.scored) : NAN;
}

double accumulationGap(const TrainRunResult& run) {
  double sum = 0;
  size_t n = 0;
  for (const TrainStepRecord& s : run.steps) {
    if (!std::isfinite(s.trainLoss) || !std::isfinite(s.fullBatchLoss)) continue;
    sum += std::fabs(s.trainLoss - s.fullBatchLoss);
    ++n;
  }
  return n > 0 ? sum / double(n) : NAN;
}

std::optional<TrainVerdict> trainVerdict(TrainOutcome outcome, const TrainReport& report,
                                         const std::vector<std::vector<int64_t>>& references) {
  switch (outcome) {
  case TrainOutcome::EndOfTurn:
    return endOfTurnVerdict(report, references);
  case TrainOutcome::HeldOutLossGap:
    return lossVerdict(report);
  case TrainOutcome::AccumulationGap:
    return accumulationVerdict(report);
  case TrainOutcome::PackingLeak:
    return packingVerdict(report);
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
