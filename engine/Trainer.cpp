// Two training runs of one model, step by step in turn (see Trainer.h). The arithmetic follows
// torch.optim.AdamW and torch.nn.utils.clip_grad_norm_ of PyTorch 1.13 so that one step can be checked
// against tools/model/adamw_reference.py. Deterministic on the CPU: fixed thread count, deterministic
// algorithms, and every sum taken in the same order.
#include "engine/Trainer.h"
#include "engine/TorchEngine.h"

#include <cmath>
#include <limits>
#include <map>

namespace maskscope::engine {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

at::Tensor grid(const IntGrid& g, at::Device d) {
  auto* p = const_cast<int64_t*>(g.values.data());
  return at::from_blob(p, {g.rows, g.cols}, at::kLong).clone().to(d);
}

int64_t gradedCount(const TrainBatch& b) {
  int64_t n = 0;
  const IntGrid& l = b.inputs.labels;
  for (int64_t r = 0; r < l.rows; ++r)
    for (int64_t c = 1; c < l.cols; ++c) n += l.at(r, c) != kIgnoreIndex;
  return n;
}

void checkBatch(const TrainBatch& b, int64_t vocab) {
  const IntGrid& ids = b.inputs.inputIds;
  if (ids.rows <= 0 || ids.cols < 2 || ids.values.size() != size_t(ids.rows * ids.cols))
    throw std::runtime_error("training batch: input_ids is empty or malformed");
  auto same = [&](const IntGrid& g, const char* name, bool optional) {
    if (optional && g.empty()) return;
    if (!g.sameShape(ids) || g.values.size() != ids.values.size())
      throw std::runtime_error(std::string("training batch: ") + name + " does not match input_ids' shape");
  };
  same(b.inputs.attentionMask, "attention_mask", true);
  same(b.inputs.positionIds, "position_ids", true);
  same(b.inputs.labels, "labels", false);
  same(b.roles, "roles", false);
  for (int64_t v : ids.values)
    if (v < 0 || v >= vocab)
      throw std::runtime_error("training batch: token id " + std::to_string(v) + " out of range");
  for (int64_t v : b.inputs.labels.values)
    if (v != kIgnoreIndex && (v < 0 || v >= vocab))
      throw std::runtime_error("training batch: label " + std::to_string(v) + " out of range");
}

} // namespace

at::Tensor shiftedLogits(const TransformerModel& m, const ForwardInputs& in) {
  const at::Device d = m.device;
  const int64_t B = in.inputIds.rows, T = in.inputIds.cols;
  const auto longOpts = at::TensorOptions().dtype(at::kLong).device(d);
  at::Tensor ids = grid(in.inputIds, d);
  at::Tensor mask = in.attentionMask.empty() ? at::ones({B, T}, longOpts) : grid(in.attentionMask, d);
  at::Tensor pos = in.positionIds.empty() ? at::arange(T, longOpts).unsqueeze(0).expand({B, T}).contiguous()
                                          : grid(in.positionIds, d);
  at::Tensor h = m.hidden(ids, mask, pos); // [B, T, hidden]
  return m.logits(h.narrow(1, 0, T - 1));  // [B, T-1, V] float32
}

MicroLoss microLoss(const TransformerModel& m, const TrainBatch& b) {
  const at::Device d = m.device;
  const int64_t T = b.inputs.inputIds.cols;
  at::Tensor logp = at::log_softmax(shiftedLogits(m, b.inputs), -1); // [B, T-1, V] float32
  at::Tensor labels = grid(b.inputs.labels, d).narrow(1, 1, T - 1);  // [B, T-1]
  at::Tensor valid = labels != kIgnoreIndex;
  at::Tensor nll = -logp.gather(2, labels.clamp_min(0).unsqueeze(2)).squeeze(2) * valid; // [B, T-1]
  MicroLoss out;
  out.sum = nll.sum();
  out.graded = valid.sum().item<int64_t>();
  at::Tensor roles = grid(b.roles, d).narrow(1, 1, T - 1).clamp(0, kRoleCount - 1);
  at::Tensor flat = nll.detach().to(at::kDouble);
  for (int k = 0; k < kRoleCount; ++k) out.roleSum[k] = (flat * (roles == k)).sum().item<double>();
  return out;
}

double clipGradients(const std::vector<at::Tensor>& params, double maxNorm) {
  std::vector<at::Tensor> norms;
  for (const at::Tensor& p : params)
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm(2));
  if (norms.empty()) return 0.0;
  at::Tensor total = at::stack(norms).norm(2);
  if (maxNorm > 0) {
    at::Tensor coef = (maxNorm / (total + 1e-6)).clamp_max(1.0);
    for (const at::Tensor& p : params)
      if (p.grad().defined()) p.mutable_grad().detach().mul_(coef);
  }
  return total.item<double>();
}

void adamwUpdate(AdamState& a, const TrainSettings& s, double lr) {
  at::NoGradGuard ng;
  a.step += 1;
  const double bc1 = 1.0 - std::pow(s.beta1, double(a.step));
  const double bc2 = 1.0 - std::pow(s.beta2, double(a.step));
  for (size_t i = 0; i < a.params.size(); ++i) {
    at::Tensor& p = a.params[i];
    if (!p.grad().defined()) continue;
    at::Tensor g = p.grad();
    if (a.decay[i]) p.mul_(1.0 - lr * s.weightDecay);
    a.expAvg[i].mul_(s.beta1).add_(g, 1.0 - s.beta1);
    a.expAvgSq[i].mul_(s.beta2).addcmul_(g, g, 1.0 - s.beta2);
    at::Tensor denom = (a.expAvgSq[i].sqrt() / std::sqrt(bc2)).add_(s.epsilon);
    p.addcdiv_(a.expAvg[i], denom, -(lr / bc1));
  }
}

namespace {

struct ThreadSettings {
  int threads;
  bool deterministic;
  explicit ThreadSettings(int n)
      : threads(at::get_num_threads()), deterministic(at::globalContext().deterministicAlgorithms()) {
    if (n > 0) at::set_num_threads(n);
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
  }
  ~ThreadSettings() {
    at::set_num_threads(threads);
    at::globalContext().setDeterministicAlgorithms(deterministic, false);
  }
};

} // namespace

TransformerModel ownedCopy(const TransformerModel& source, at::Device device) {
  TransformerModel m = source;
  std::map<const void*, at::Tensor> done; // the same tensor (tied embeddings) stays one tensor
  auto own = [&](at::Tensor& t) {
    if (!t.defined()) return;
    const void* key = t.unsafeGetTensorImpl();
    auto it = done.find(key);
    if (it != done.end()) {
      t = it->second;
      return;
    }
    at::Tensor c = t.detach().to(device, at::kFloat).clone().contiguous();
    done[key] = c;
    t = c;
  };
  own(m.embed);
  own(m.finalNorm);
  own(m.lmHead);
  for (LayerWeights& l : m.layers)
    for (at::Tensor* x : l.all()) own(*x);
  m.device = device;
  m.dtype = at::kFloat;
  m.layersOnMapping = false;
  return m;
}

AdamState adamFor(const TransformerModel& model) {
  AdamState a;
  a.params = model.parameters();
  for (at::Tensor& p : a.params) {
    p.requires_grad_(true);
    a.expAvg.push_back(at::zeros_like(p));
    a.expAvgSq.push_back(at::zeros_like(p));
    a.decay.push_back(p.dim() >= 2);
  }
  return a;
}

double scheduledRate(const TrainSettings& s, int64_t step, int64_t total) {
  if (s.warmupSteps > 0 && step < s.warmupSteps) return s.learningRate * double(step + 1) / double(s.warmupSteps);
  if (s.schedule == "constant") return s.learningRate;
  const int64_t span = std::max<int64_t>(1, total - s.warmupSteps);
  const double progress = double(step - s.warmupSteps) / double(span);
  return s.learningRate * 0.5 * (1.0 + std::cos(M_PI * progress));
}

TrainStepRecord trainStep(TransformerModel& model, AdamState& adam, const std::vector<TrainBatch>& micro,
                          bool perMicroBatchMean, const TrainSettings& settings, double learningRate) {
  TrainStepRecord rec;
  rec.learningRate = learningRate;
  for (const TrainBatch& b : micro) rec.graded += gradedCount(b);
  for (at::Tensor& p : adam.params) p.mutable_grad() = at::Tensor();
  double roleSum[kRoleCount] = {0, 0, 0, 0};
  double reported = 0.0, summed = 0.0;
  const double K = double(micro.size());
  for (const TrainBatch& b : micro) {
    MicroLoss ml = microLoss(model, b);
    for (int k = 0; k < kRoleCount; ++k) roleSum[k] += ml.roleSum[k];
    summed += ml.sum.item<double>();
    if (ml.graded == 0) continue; // contributes nothing (its mean would be NaN)
    // Token-weighted: every graded position of the step weighs 1/N. The bug: each micro-batch's own
    // mean weighs 1/K, so a position in a short micro-batch counts more than one in a long one.
    at::Tensor loss = perMicroBatchMean ? ml.sum / double(ml.graded) / K : ml.sum / double(rec.graded);
    loss.backward();
    reported += loss.item<double>();
  }
  rec.trainLoss = rec.graded > 0 ? reported : kNaN;
  rec.fullBatchLoss = rec.graded > 0 ? summed / double(rec.graded) : kNaN;
  double total = 0;
  for (double v : roleSum) total += v;
  for (int k = 0; k < kRoleCount; ++k) rec.lossShare[k] = total > 0 ? roleSum[k] / total : 0.0;
  rec.gradNorm = clipGradients(adam.params, settings.clipNorm);
  adamwUpdate(adam, settings, learningRate);
  return rec;
}

double heldOutLoss(const TransformerModel& model, const std::vector<TrainBatch>& batches) {
  at::NoGradGuard ng;
  double sum = 0;
  int64_t n = 0;
  for (const TrainBatch& b : batches) {
    MicroLoss ml = microLoss(model, b);
    sum += ml.sum.item<double>();
    n += ml.graded;
  }
  return n > 0 ? sum / double(n) : kNaN;
}

GenerationRecord generateGreedy(const TransformerModel& model, const std::vector<int64_t>& prompt,
                                const std::vector<int64_t>& stopIds, int64_t maxNewTokens) {
  at::NoGradGuard ng;
  GenerationRecord g;
  std::vector<int64_t> ids = prompt;
  const auto longOpts = at::TensorOptions().dtype(at::kLong).device(model.device);
  for (int64_t i = 0; i < maxNewTokens; ++i) {
    const int64_t T = int64_t(ids.size());
    at::Tensor in = at::from_blob(ids.data(), {1, T}, at::kLong).clone().to(model.device);
    at::Tensor h = model.hidden(in, at::ones({1, T}, longOpts), at::arange(T, longOpts).unsqueeze(0));
    const int64_t next = model.logits(h[0][T - 1]).argmax(-1).item<int64_t>();
    ids.push_back(next);
    g.tokens.push_back(next);
    if (std::find(stopIds.begin(), stopIds.end(), next) != stopIds.end()) {
      g.stopped = true;
      break;
    }
  }
  return g;
}

void teacherForce(const TransformerModel& model, const std::vector<int64_t>& prompt,
                  const std::vector<int64_t>& reference, GenerationRecord& g) {
  if (reference.empty() || prompt.empty()) return;
  at::NoGradGuard ng;
  std::vector<int64_t> ids = prompt;
  ids.insert(ids.end(), reference.begin(), reference.end() - 1); // the last reference token is never read
  const int64_t T = int64_t(ids.size()), P = int64_t(prompt.size()), n = int64_t(reference.size());
  const auto longOpts = at::TensorOptions().dtype(at::kLong).device(model.device);
  at::Tensor in = at::from_blob(ids.data(), {1, T}, at::kLong).clone().to(model.device);
  at::Tensor h = model.hidden(in, at::ones({1, T}, longOpts), at::arange(T, longOpts).unsqueeze(0)); // [1, T, hidden]
  // Position P-1+k (the prompt's last token, then reply tokens) predicts reference[k].
  at::Tensor logits = model.logits(h[0].narrow(0, P - 1, n)).to(at::kFloat);               // [n, V]
  at::Tensor next = logits.argmax(-1).to(at::kCPU).contiguous();                           // [n]
  at::Tensor target = at::tensor(at::ArrayRef<int64_t>(reference), longOpts).unsqueeze(1); // [n, 1]
  at::Tensor logProb =
      at::log_softmax(logits, -1).gather(1, target).squeeze(1).to(at::kDouble).to(at::kCPU).contiguous();
  g.teacherForced.assign(next.data_ptr<int64_t>(), next.data_ptr<int64_t>() + n);
  g.teacherForcedLogProb.assign(logProb.data_ptr<double>(), logProb.data_ptr<double>() + n);
}

namespace {

struct Run {
  TransformerModel model;
  AdamState adam;
};

void validateRequest(const TrainRequest& req, int64_t vocab) {
  if (req.settings.learningRate <= 0 || !std::isfinite(req.settings.learningRate))
    throw std::runtime_error("the learning rate must be a positive number");
  if (req.settings.schedule != "cosine" && req.settings.schedule != "constant")
    throw std::runtime_error("schedule '" + req.settings.schedule + "' is not cosine or constant");
  if (req.settings.evalEvery <= 0) throw std::runtime_error("eval-every must be at least 1");
  for (const TrainRunPlan& r : req.runs)
    for (const auto& step : r.steps)
      for (const TrainBatch& b : step) checkBatch(b, vocab);
  for (const TrainBatch& b : req.heldOut) checkBatch(b, vocab);
  for (const TrainRunPlan& r : req.runs)
    for (const TrainBatch& b : r.heldOutAsTrained) checkBatch(b, vocab);
  for (const auto& p : req.generation.prompts)
    for (int64_t v : p)
      if (v < 0 || v >= vocab) throw std::runtime_error("generation prompt: token id out of range");
  const auto& refs = req.generation.references;
  if (!refs.empty() && refs.size() != req.generation.prompts.size())
    throw std::runtime_error("generation references: one per prompt, or none");
  for (const auto& ref : refs)
    for (int64_t v : ref)
      if (v < 0 || v >= vocab) throw std::runtime_error("generation reference: token id out of range");
}

void scoreHeldOut(Run& run, const TrainRequest& req, int r, int64_t step, TrainReport& rep, const TrainObserver& obs) {
  HeldOutRecord h{step, heldOutLoss(run.model, req.heldOut)};
  rep.runs[r].heldOut.push_back(h);
  if (obs.heldOut) obs.heldOut(r, h);
}

} // namespace

TrainReport trainTwoRuns(const TrainRequest& req, const TrainObserver& obs, const RunControl& control) {
  ThreadSettings threads(req.settings.threads);
  at::manual_seed(req.settings.seed);
  const at::Device device = resolveDevice(req.device);
  TransformerModel base = loadTransformerModel(req.model, device, control);
  if (req.randomInit) base = TransformerModel::random(base.config, req.settings.seed, device);
  validateRequest(req, base.config.vocabSize);
  TrainReport rep;
  rep.device = device.is_cuda() ? "cuda" : "cpu";
  static const std::string kCudaNote = "trained in float32 on CUDA (not bit-reproducible across GPUs)";
  if (device.is_cuda()) rep.notes.push_back(kCudaNote);
  Run runs[2] = {{ownedCopy(base, device), {}}, {ownedCopy(base, device), {}}};
  const int64_t total = int64_t(std::max(req.runs[0].steps.size(), req.runs[1].steps.size()));
  for (int r = 0; r < 2; ++r) {
    runs[r].adam = adamFor(runs[r].model);
    rep.runs[r].name = req.runs[r].name;
    scoreHeldOut(runs[r], req, r, 0, rep, obs);
  }
  for (int64_t s = 0; s < total; ++s) {
    for (int r = 0; r < 2; ++r) {
      const TrainRunPlan& plan = req.runs[r];
      if (s >= int64_t(plan.steps.size())) continue;
      if (control.cancel && control.cancel->load()) throw std::runtime_error("cancelled");
      const double lr = scheduledRate(req.settings, s, int64_t(plan.steps.size()));
      TrainStepRecord rec =
          trainStep(runs[r].model, runs[r].adam, plan.steps[size_t(s)], plan.perMicroBatchMean, req.settings, lr);
      rec.step = s + 1;
      rep.runs[r].steps.push_back(rec);
      if (obs.step) obs.step(r, rec);
      if ((s + 1) % req.settings.evalEvery == 0 || s + 1 == int64_t(plan.steps.size()))
        scoreHeldOut(runs[r], req, r, s + 1, rep, obs);
    }
    if (control.progress) control.progress(double(s + 1) / double(total), "step " + std::to_string(s + 1));
  }
  for (int r = 0; r < 2; ++r) {
    for (at::Tensor& p : runs[r].adam.params) p.requires_grad_(false);
    rep.runs[r].heldOutAsTrainedLoss = heldOutLoss(runs[r].model, req.runs[r].heldOutAsTrained);
    const GenerationPlan& gen = req.generation;
    for (size_t i = 0; i < gen.prompts.size(); ++i) {
      if (control.cancel && control.cancel->load()) throw std::runtime_error("cancelled");
      GenerationRecord g = generateGreedy(runs[r].model, gen.prompts[i], gen.stopIds, gen.maxNewTokens);
      if (i < gen.references.size()) teacherForce(runs[r].model, gen.prompts[i], gen.references[i], g);
      rep.runs[r].generations.push_back(std::move(g));
    }
  }
  return rep;
}

} // namespace maskscope::engine
