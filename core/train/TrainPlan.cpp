// train-ab's plan (see TrainPlan.h): dataset -> held-out split -> the same shuffled batches collated
// by both collators -> TrainRequest for the LibTorch module (ForwardEngine::trainAB). Everything the
// model sees is built here with the same encoder and collators the other commands use.
#include "core/train/TrainPlan.h"
#include "core/collate/DatasetPipeline.h"
#include "core/data/PreferenceRow.h"
#include "core/forward/LossPlan.h"
#include "core/forward/ModelSpec.h"
#include "core/mask/RowFacts.h"
#include "core/train/TrainExperiments.h"
#include "core/util/Error.h"

#include <cmath>
#include <ostream>
#include <random>

namespace maskscope {

bool isHeldOut(size_t index, int64_t every) { return every > 0 && int64_t(index % size_t(every)) == every - 1; }

namespace {

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

// The held-out reply that follows a generation prompt: the conversation's tokens from the end of the
// prompt through its last graded position (the reply and its closing token, as the default collator
// grades them). Empty when the prompt is not a prefix of the conversation's tokens (a tokenizer that
// merges across the boundary) or nothing after it is graded.
std::vector<int64_t> referenceReply(const DatasetPipeline& pipe, const TokenizedConversation& full,
                                    const std::vector<int64_t>& prompt) {
  if (full.tokens.size() <= prompt.size()) return {};
  for (size_t k = 0; k < prompt.size(); ++k)
    if (full.tokens[k].id != prompt[k]) return {};
  const Batch b = pipe.collate({full});
  int64_t last = -1;
  for (int64_t t = int64_t(prompt.size()); t < b.length(); ++t)
    if (gradedAt(b, 0, t)) last = t;
  std::vector<int64_t> ref;
  for (int64_t t = int64_t(prompt.size()); t <= last; ++t) ref.push_back(b.inputIds.at(0, t));
  return ref;
}

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

// The held-out conversations in batches of batchSize rows, collated by pipe's collator.
std::vector<TrainBatch> heldOutBatches(const DatasetPipeline& pipe, const std::vector<TokenizedConversation>& rows,
                                       int64_t batchSize) {
  std::vector<TrainBatch> out;
  for (size_t i = 0; i < rows.size(); i += size_t(batchSize)) {
    std::vector<TokenizedConversation> part(rows.begin() + long(i),
                                            rows.begin() + long(std::min(rows.size(), i + size_t(batchSize))));
    out.push_back(trainBatchOf(pipe.collate(part)));
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
    gen.references.push_back(referenceReply(pipe, p.heldOut.back(), ids));
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
  if (!(a.learningRate >= 0) || !std::isfinite(a.learningRate))
    throw Error("--lr must be positive (0: the experiment's)", {"--lr"});
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
  b.outcome = a.collatorA.empty() ? e.outcome : TrainOutcome::None;
  b.args.learningRate = a.learningRate > 0 ? a.learningRate : e.learningRate; // the report quotes the rate used
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
    req.runs[r].heldOutAsTrained = heldOutBatches(runPipe, prepared.heldOut, a.batchSize);
  }
  req.heldOut = heldOutBatches(*b.pipeline, prepared.heldOut, a.batchSize);
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
  s.learningRate = b.args.learningRate;
  s.warmupSteps = a.warmup;
  s.schedule = a.schedule;
  s.seed = a.seed;
  s.evalEvery = a.evalEvery;
  s.threads = a.threads;
  return b;
}

} // namespace

TrainABPlan planTrainAB(const TrainArgs& args, std::ostream& err) {
  checkArgs(args);
  return buildRequest(args, findTrainExperiment(args.experiment), err);
}

} // namespace maskscope
