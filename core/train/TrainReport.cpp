// The train-ab report (see TrainReport.h): per run the curves, held-out losses, loss shares by role
// and decoded generations, and the notes on how far the numbers can be trusted.
#include "core/train/TrainReport.h"
#include "core/collate/CollatorSpec.h"
#include "core/collate/DatasetPipeline.h"
#include "core/forward/LossPlan.h"
#include "core/forward/ModelSpec.h"
#include "core/train/ExposureBias.h"
#include "core/train/TrainPlan.h"

#include <cmath>

namespace maskscope {
namespace {

double last(const std::vector<HeldOutRecord>& v) { return v.empty() ? NAN : v.back().loss; }
double lastTrain(const std::vector<TrainStepRecord>& v) { return v.empty() ? NAN : v.back().trainLoss; }

nlohmann::json runJson(const TrainRunResult& r, const TrainABPlan& b, int index, const Tokenizer& tok) {
  using nlohmann::json;
  json curve = {{"step", json::array()},          {"train_loss", json::array()}, {"full_batch_loss", json::array()},
                {"learning_rate", json::array()}, {"grad_norm", json::array()},  {"graded", json::array()}};
  json shares = json::object();
  for (int k = 0; k < kRoleCount; ++k) shares[positionRoleName(PositionRole(k))] = json::array();
  for (const TrainStepRecord& s : r.steps) {
    curve["step"].push_back(s.step);
    curve["train_loss"].push_back(s.trainLoss);
    curve["full_batch_loss"].push_back(s.fullBatchLoss);
    curve["learning_rate"].push_back(s.learningRate);
    curve["grad_norm"].push_back(s.gradNorm);
    curve["graded"].push_back(s.graded);
    for (int k = 0; k < kRoleCount; ++k) shares[positionRoleName(PositionRole(k))].push_back(s.lossShare[k]);
  }
  curve["loss_share"] = shares;
  json held = {{"step", json::array()}, {"loss", json::array()}};
  for (const HeldOutRecord& h : r.heldOut) {
    held["step"].push_back(h.step);
    held["loss"].push_back(h.loss);
  }
  json gens = json::array();
  for (size_t i = 0; i < r.generations.size(); ++i) {
    const GenerationRecord& g = r.generations[i];
    std::vector<int32_t> ids(g.tokens.begin(), g.tokens.end());
    gens.push_back({{"row", i < b.generationRows.size() ? b.generationRows[i] : -1L},
                    {"stopped", g.stopped},
                    {"new_tokens", g.tokens.size()},
                    {"text", tok.decode(ids)}});
  }
  const CollatorSpec spec = parseCollatorSpec(b.collator[index]);
  return {{"run", index == 0 ? "A" : "B"},
          {"collator", b.collator[index]},
          {"collator_description", spec.describe()},
          {"normalisation", b.request.runs[index].perMicroBatchMean ? "per_micro_batch_mean" : "token_weighted"},
          {"final_train_loss", lastTrain(r.steps)},
          {"final_held_out_loss", last(r.heldOut)},
          {"held_out_as_trained_loss", r.heldOutAsTrainedLoss},
          {"stop_fraction", stopFraction(r)},
          {"end_of_turn_nll", endOfTurnNll(r, b.request.generation.references)},
          {"closes_reply", closesReplyShare(r, b.request.generation.references)},
          {"exposure", exposureJson(exposureBias(r, b.request.generation.references, b.generationRows))},
          {"curve", curve},
          {"held_out", held},
          {"generations", gens}};
}

// The held-out loss of the weights both runs start from (step 0), beside a model that knows nothing:
// uniform over the vocabulary, ln V nats per token. null when step 0 was not evaluated.
nlohmann::json heldOutBeforeJson(const TrainReport& rep, int32_t vocab) {
  const std::vector<HeldOutRecord>& h = rep.runs[1].heldOut;
  if (h.empty() || h.front().step != 0 || vocab <= 1) return nullptr;
  const double uniform = std::log(double(vocab));
  return {{"loss", h.front().loss}, {"uniform_loss", uniform}, {"fraction_of_uniform", h.front().loss / uniform}};
}

} // namespace

double stopFraction(const TrainRunResult& r) {
  if (r.generations.empty()) return NAN;
  size_t n = 0;
  for (const GenerationRecord& g : r.generations) n += g.stopped;
  return double(n) / double(r.generations.size());
}

nlohmann::json trainReportJson(const TrainABPlan& b, const TrainReport& rep) {
  const TrainArgs& args = b.args;
  nlohmann::json j;
  j["experiment"] = b.experiment;
  j["look_for"] = b.lookFor;
  j["model"] = args.modelSpec;
  j["init"] = args.init;
  j["data"] = args.dataSpec;
  j["device"] = rep.device;
  j["steps"] = args.steps > 0 ? args.steps : kDefaultTrainSteps;
  j["seed"] = args.seed;
  j["learning_rate"] = args.learningRate;
  j["batch_size"] = args.batchSize;
  j["train_conversations"] = b.trainConversations;
  j["held_out_conversations"] = b.heldOutConversations;
  const int32_t vocab = b.pipeline->tokenizer().vocabSize();
  j["vocab_size"] = vocab;
  j["held_out_before"] = heldOutBeforeJson(rep, vocab);
  j["runs"] = nlohmann::json::array();
  for (int r = 0; r < 2; ++r) j["runs"].push_back(runJson(rep.runs[r], b, r, b.pipeline->tokenizer()));
  std::vector<std::string> notes = rep.notes;
  if (args.modelSpec == kBuiltinTinyModel && args.init == "pretrained" && args.dataSpec == "builtin:demo")
    notes.push_back("builtin:tiny was pretrained on plain text only (tools/demo/corpus and text Debian ships: "
                    "WordNet, the Python documentation, the Debian Administrator's Handbook; see "
                    "tools/model/train_tiny.py), never on a demo conversation nor a control token: the held-out "
                    "conversations are never seen, neither in pretraining nor in fine-tuning");
  j["notes"] = notes;
  j["verdict"] = trainVerdictJson(trainVerdict(b.outcome, rep, b.request.generation.references));
  return j;
}

} // namespace maskscope
