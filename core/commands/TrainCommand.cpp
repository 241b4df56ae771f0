// `maskscope train-ab` (see TrainCommand.h): dataset -> held-out split -> the same shuffled batches
// collated by both collators -> TrainRequest -> the LibTorch module (ForwardEngine::trainAB) -> report.
// Everything the model sees is built here with the same encoder and collators the other commands use.
#include "core/commands/TrainCommand.h"
#include "core/collate/DatasetPipeline.h"
#include "core/data/PreferenceRow.h"
#include "core/forward/ForwardEngineLoader.h"
#include "core/forward/LossPlan.h"
#include "core/forward/ModelSpec.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <random>

namespace maskscope {

const std::vector<TrainExperiment>& trainExperiments() {
  static const std::vector<TrainExperiment> list = {
      {"stop-token", "buggy-pad-is-eos", "hf-lm", false, false, 0,
       "pad_token = eos_token masks every end-of-turn token, so run A never learns to stop: its generations "
       "run to the length limit (stop_fraction near 0) while run B's end with the end-of-turn token"},
      {"pad-graded", "buggy-max-length-all-ones", "default", false, false, 0,
       "run A grades and attends padding: its training loss falls fast on easy pad targets (see the pad "
       "loss share) while its held-out loss on real replies lags run B's"},
      {"prompt-graded", "hf-seq2seq-style", "default", false, false, 0,
       "run A also learns the prompts (prompt loss share), so less of its gradient goes to replies: "
       "compare the held-out reply loss"},
      {"packing", "buggy-no-position-reset", "axolotl-packed", false, false, 0,
       "run A packs examples with positions counting on and attention across examples; run B resets "
       "positions and keeps attention inside each example: compare the held-out loss of single examples"},
      {"grad-accum", "default", "default", true, false, 2,
       "the same collator; run A averages each micro-batch's mean (a token in a short micro-batch weighs "
       "more), run B divides the step's summed loss by all its graded tokens: the curves drift apart"},
  };
  return list;
}

bool isHeldOut(size_t index, int64_t every) { return every > 0 && int64_t(index % size_t(every)) == every - 1; }

namespace {

const TrainExperiment& findExperiment(const std::string& name) {
  std::string names;
  for (const TrainExperiment& e : trainExperiments()) {
    if (e.name == name) return e;
    names += (names.empty() ? "" : ", ") + e.name;
  }
  throw Error("unknown experiment \"" + name + "\" (experiments: " + names + ")", {"--experiment"});
}

TrainBatch trainBatchOf(const Batch& b) {
  TrainBatch t;
  t.inputs.inputIds = b.inputIds;
  t.inputs.attentionMask = b.attentionMask;
  t.inputs.positionIds = b.positionIds;
  t.inputs.labels = b.labels;
  t.roles = positionRoles(b);
  return t;
}

// Fisher-Yates with the seeded 64-bit Mersenne twister (the same order on every platform).
std::vector<size_t> shuffled(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[size_t(rng() % i)]);
  return order;
}

struct Prepared {
  std::vector<TokenizedConversation> train, heldOut;
  std::vector<long> generationRows; // dataset row of each generation prompt
  std::vector<std::string> promptTexts;
};

// Steps of one run: batch s takes the next batchSize conversations of the epoch's shuffled order, split
// into micro-batches of microBatch rows, each collated by this run's collator.
std::vector<std::vector<TrainBatch>> stepsFor(const DatasetPipeline& pipe,
                                              const std::vector<TokenizedConversation>& rows, const TrainArgs& a,
                                              int64_t steps, int64_t micro) {
  std::vector<std::vector<TrainBatch>> out;
  std::vector<size_t> order;
  size_t next = 0, epoch = 0;
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<TokenizedConversation> batch;
    while (int64_t(batch.size()) < a.batchSize) {
      if (next == order.size()) {
        order = shuffled(rows.size(), a.seed * 1000003 + epoch++);
        next = 0;
      }
      batch.push_back(rows[order[next++]]);
    }
    std::vector<TrainBatch> step;
    for (size_t i = 0; i < batch.size(); i += size_t(micro)) {
      std::vector<TokenizedConversation> part(batch.begin() + long(i),
                                              batch.begin() + long(std::min(batch.size(), i + size_t(micro))));
      step.push_back(trainBatchOf(pipe.collate(part)));
    }
    out.push_back(std::move(step));
  }
  return out;
}

// Held-out conversations and their generation prompts: every message before the last assistant reply,
// rendered with the template's generation prompt.
Prepared prepare(const DatasetPipeline& pipe, const std::vector<Conversation>& rows, const TrainArgs& a,
                 GenerationPlan& gen) {
  Prepared p;
  EncoderOptions genOpts;
  genOpts.render = pipe.renderOptions();
  genOpts.render.addGenerationPrompt = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!isHeldOut(i, a.heldOutEvery)) {
      p.train.push_back(pipe.encode(rows[i]));
      continue;
    }
    p.heldOut.push_back(pipe.encode(rows[i]));
    const Conversation& c = rows[i];
    if (c.plainText || c.messages.empty() || c.messages.back().role != "assistant") continue;
    Conversation prompt = c;
    prompt.messages.pop_back();
    TokenizedConversation t = pipe.encoder().encode(prompt, genOpts);
    std::vector<int64_t> ids;
    for (const TokenInfo& tok : t.tokens) ids.push_back(tok.id);
    gen.prompts.push_back(std::move(ids));
    p.generationRows.push_back(long(i));
    p.promptTexts.push_back(t.text);
  }
  if (p.train.empty() || p.heldOut.empty())
    throw Error("the data needs conversations to train on and to hold out (every " + std::to_string(a.heldOutEvery) +
                    "th is held out); it has " + std::to_string(rows.size()),
                {a.dataSpec});
  return p;
}

void checkArgs(const TrainArgs& a) {
  if (a.steps < 0 || a.steps > 100000) throw Error("--steps must be 1..100000", {"--steps"});
  if (a.batchSize < 1 || a.batchSize > 1024) throw Error("--batch-size must be 1..1024", {"--batch-size"});
  if (a.microBatch < 0 || a.microBatch > a.batchSize)
    throw Error("--micro-batch must be 1..batch size", {"--micro-batch"});
  if (a.evalEvery < 1) throw Error("--eval-every must be at least 1", {"--eval-every"});
  if (a.heldOutEvery < 2) throw Error("--held-out-every must be at least 2", {"--held-out-every"});
  if (a.maxNewTokens < 1 || a.maxNewTokens > 4096)
    throw Error("--max-new-tokens must be 1..4096", {"--max-new-tokens"});
  if (!(a.learningRate > 0) || !std::isfinite(a.learningRate)) throw Error("--lr must be positive", {"--lr"});
  if (a.init != "random" && a.init != "pretrained") throw Error("--init must be random or pretrained", {"--init"});
  if (a.collatorA.empty() != a.collatorB.empty())
    throw Error("--collator-a and --collator-b go together", {a.collatorA.empty() ? "--collator-a" : "--collator-b"});
  if (a.device != "auto" && a.device != "cpu" && a.device != "cuda")
    throw Error("--device must be auto, cpu or cuda, not '" + a.device + "'", {"--device"});
}

TrainABPlan buildRequest(const TrainArgs& a, const TrainExperiment& e, std::ostream& err) {
  TrainABPlan b;
  b.args = a;
  b.experiment = a.collatorA.empty() ? e.name : "custom";
  b.lookFor = a.collatorA.empty() ? e.lookFor : "compare the two runs' curves and generations";
  b.collator[0] = a.collatorA.empty() ? e.collatorA : a.collatorA;
  b.collator[1] = a.collatorB.empty() ? e.collatorB : a.collatorB;
  PipelineSpec ps;
  ps.tokenizerSpec = a.tokenizerSpec;
  ps.templateSpec = a.templateSpec;
  ps.collatorSpec = "default"; // the held-out loss is always under correct masks
  b.pipeline = std::make_shared<DatasetPipeline>(ps);
  refusePreferenceData(a.dataSpec, "train-ab");
  std::vector<RowError> errors;
  std::vector<Conversation> rows = readDataset(a.dataSpec, &errors);
  for (const RowError& r : errors) err << "skipped: " << r.toString() << "\n";
  TrainRequest& req = b.request;
  const Prepared prepared = prepare(*b.pipeline, rows, a, req.generation);
  b.trainConversations = prepared.train.size();
  b.heldOutConversations = prepared.heldOut.size();
  b.generationRows = prepared.generationRows;
  const int64_t steps = a.steps > 0 ? a.steps : kDefaultTrainSteps;
  const int64_t micro = a.microBatch > 0 ? a.microBatch : e.microBatch > 0 ? e.microBatch : a.batchSize;
  const bool meanBug[2] = {a.collatorA.empty() && e.perMicroBatchMeanA, a.collatorB.empty() && e.perMicroBatchMeanB};
  for (int r = 0; r < 2; ++r) {
    DatasetPipeline runPipe(*b.pipeline, parseCollatorSpec(b.collator[r]));
    req.runs[r].name = b.collator[r];
    req.runs[r].perMicroBatchMean = meanBug[r];
    req.runs[r].steps = stepsFor(runPipe, prepared.train, a, steps, micro);
  }
  for (size_t i = 0; i < prepared.heldOut.size(); i += size_t(a.batchSize)) {
    std::vector<TokenizedConversation> part(prepared.heldOut.begin() + long(i),
                                            prepared.heldOut.begin() +
                                                long(std::min(prepared.heldOut.size(), i + size_t(a.batchSize))));
    req.heldOut.push_back(trainBatchOf(b.pipeline->collate(part)));
  }
  SpecialTokenIds special = b.pipeline->specialTokens();
  if (special.eos) req.generation.stopIds.push_back(*special.eos);
  if (auto te = b.pipeline->tokenizer().specialTokens().eos; te && (!special.eos || *te != *special.eos))
    req.generation.stopIds.push_back(*te);
  if (req.generation.stopIds.empty()) throw Error("the tokenizer has no end-of-turn (EOS) token to stop on");
  req.generation.maxNewTokens = a.maxNewTokens;
  req.model = modelSourceFor(a.modelSpec);
  req.randomInit = a.init == "random";
  req.device = a.device;
  TrainSettings& s = req.settings;
  s.learningRate = a.learningRate;
  s.warmupSteps = a.warmup;
  s.schedule = a.schedule;
  s.seed = a.seed;
  s.evalEvery = a.evalEvery;
  s.threads = a.threads;
  return b;
}

double last(const std::vector<HeldOutRecord>& v) { return v.empty() ? NAN : v.back().loss; }
double lastTrain(const std::vector<TrainStepRecord>& v) { return v.empty() ? NAN : v.back().trainLoss; }

nlohmann::json runJson(const TrainRunResult& r, const TrainABPlan& b, int index, const Tokenizer& tok) {
  using nlohmann::json;
  json curve = {{"step", json::array()},
                {"train_loss", json::array()},
                {"learning_rate", json::array()},
                {"grad_norm", json::array()},
                {"graded", json::array()}};
  json shares = json::object();
  for (int k = 0; k < kRoleCount; ++k) shares[positionRoleName(PositionRole(k))] = json::array();
  for (const TrainStepRecord& s : r.steps) {
    curve["step"].push_back(s.step);
    curve["train_loss"].push_back(s.trainLoss);
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
          {"stop_fraction", stopFraction(r)},
          {"curve", curve},
          {"held_out", held},
          {"generations", gens}};
}

std::string fmt(double v, const char* f = "%.4f") {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void printHuman(const nlohmann::json& j, std::ostream& o) {
  o << "experiment " << j["experiment"].get<std::string>() << ": " << j["look_for"].get<std::string>() << "\n";
  o << "model " << j["model"].get<std::string>() << " (" << j["init"].get<std::string>() << " init) on "
    << j["device"].get<std::string>() << ", " << j["steps"].get<int64_t>() << " steps, "
    << j["train_conversations"].get<int64_t>() << " conversations trained on, "
    << j["held_out_conversations"].get<int64_t>() << " held out\n\n";
  for (const auto& r : j["runs"]) {
    auto num = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : NAN; };
    o << "run " << r["run"].get<std::string>() << "  " << r["collator"].get<std::string>() << " ("
      << r["normalisation"].get<std::string>() << ")\n";
    o << "  final training loss " << fmt(num(r["final_train_loss"])) << ", held-out loss "
      << fmt(num(r["final_held_out_loss"])) << ", stop fraction " << fmt(num(r["stop_fraction"]), "%.2f") << "\n";
    o << "  held-out curve:";
    for (size_t i = 0; i < r["held_out"]["step"].size(); ++i)
      o << " " << r["held_out"]["step"][i].get<int64_t>() << ":" << fmt(num(r["held_out"]["loss"][i]), "%.3f");
    o << "\n";
    for (const auto& g : r["generations"]) {
      std::string text = g["text"].get<std::string>();
      for (char& c : text)
        if (c == '\n') c = ' ';
      o << "  row " << g["row"].get<long>() << (g["stopped"].get<bool>() ? " [stopped] " : " [no stop] ") << text
        << "\n";
    }
    o << "\n";
  }
}

} // namespace

double stopFraction(const TrainRunResult& r) {
  if (r.generations.empty()) return NAN;
  size_t n = 0;
  for (const GenerationRecord& g : r.generations) n += g.stopped;
  return double(n) / double(r.generations.size());
}

TrainABPlan planTrainAB(const TrainArgs& args, std::ostream& err) {
  checkArgs(args);
  return buildRequest(args, findExperiment(args.experiment), err);
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
  j["runs"] = nlohmann::json::array();
  for (int r = 0; r < 2; ++r) j["runs"].push_back(runJson(rep.runs[r], b, r, b.pipeline->tokenizer()));
  std::vector<std::string> notes = rep.notes;
  if (args.modelSpec == kBuiltinTinyModel && args.init == "pretrained" && args.dataSpec == "builtin:demo")
    notes.push_back("builtin:tiny was pretrained on every demo conversation, the held-out ones included: the "
                    "held-out loss starts low and rises as fine-tuning on the others overwrites them; the "
                    "split is honest for the fine-tuning only");
  j["notes"] = notes;
  return j;
}

int runTrainAB(const TrainArgs& args, CommandIO& io) {
  TrainABPlan b = planTrainAB(args, io.err);
  auto engine = requireForwardEngine();
  TrainObserver obs;
  obs.heldOut = [&](int run, const HeldOutRecord& h) {
    io.err << "step " << h.step << "  run " << (run == 0 ? "A" : "B") << "  held-out loss " << fmt(h.loss) << "\n";
    io.err.flush();
  };
  TrainReport rep;
  try {
    rep = engine->trainAB(b.request, obs, {});
  } catch (const Error&) {
    throw;
  } catch (const std::exception& ex) {
    throw Error(ex.what(), {args.modelSpec});
  }
  const nlohmann::json j = trainReportJson(b, rep);
  if (io.json)
    io.out << escapeLineSeparators(j.dump()) << "\n";
  else
    printHuman(j, io.out);
  if (!io.json)
    for (const auto& n : j["notes"]) io.err << "note: " << n.get<std::string>() << "\n";
  return 0;
}

} // namespace maskscope
