// The masking lessons (Lessons.h), each measured, never assumed: the gradient every scored position's
// loss term sends into the weights (autograd's d(mean loss)/d(logits) at that position, pulled back to
// the weights by a backward of its own), AdamW steps with the trainer's arithmetic from one set of
// weights, and forward passes with a prompt token changed and with the labels flipped.
#include "engine/Lessons.h"
#include "engine/InputChecks.h"
#include "engine/RunProgress.h"
#include "engine/Trainer.h"

#include <algorithm>
#include <cmath>

namespace maskscope::engine {
namespace {

void validateLessons(const LessonsRequest& req, int64_t vocab) {
  const ForwardInputs& in = req.inputs;
  validateInputs(in, vocab);
  if (in.labels.empty()) throw std::runtime_error("the lessons need labels");
  if (in.inputIds.cols < 2) throw std::runtime_error("the lessons need rows of at least two positions");
  validateGrid(req.roles, in.inputIds, "roles", false);
  validateGrid(req.flippedLabels, in.inputIds, "flipped labels", true);
  if (!req.flippedLabels.empty()) validateIds(req.flippedLabels, vocab, "flipped labels", true);
  const int64_t scored = in.inputIds.rows * (in.inputIds.cols - 1);
  if (scored > kMaxLessonPositions)
    throw std::runtime_error("the lessons compute one gradient per scored position: " + std::to_string(scored) +
                             " positions (rows x (length - 1)) is over " + std::to_string(kMaxLessonPositions) +
                             "; take fewer rows (--rows)");
  const LessonsProbe& p = req.probe;
  if (p.row < 0) return;
  if (p.row >= in.inputIds.rows || p.position < 0 || p.position >= in.inputIds.cols)
    throw std::runtime_error("the probe (row " + std::to_string(p.row) + ", position " + std::to_string(p.position) +
                             ") is outside the batch");
  if (p.token < 0 || p.token >= vocab || p.token == in.inputIds.at(p.row, p.position))
    throw std::runtime_error("the probe's token " + std::to_string(p.token) +
                             " is not another id of the model's vocabulary");
  if (p.position >= 1 && in.labels.at(p.row, p.position) != kIgnoreIndex)
    throw std::runtime_error("the probe's position " + std::to_string(p.position) + " is graded: it must be -100");
}

// Squared L2 norm (float64) and non-zero entries of a set of gradients (undefined: no gradient, 0).
struct GradientSize {
  double squared = 0.0;
  int64_t nonZero = 0;
};
GradientSize sizeOf(const std::vector<at::Tensor>& grads) {
  at::NoGradGuard ng;
  GradientSize s;
  for (const at::Tensor& g : grads) {
    if (!g.defined()) continue;
    s.squared += g.to(at::kDouble).pow(2).sum().item<double>();
    s.nonZero += (g != 0).sum().item<int64_t>();
  }
  return s;
}

// The mean loss's gradient split by position: autograd gives d(mean loss)/d(logits) [B, T-1, V]; the
// slice at (b, t) is what position t + 1's term sends back (0 where its label is -100: the loss has
// no such term), and one backward of that slice alone gives its gradient in the weights.
void positionGradients(const TransformerModel& m, const LessonsRequest& req, const RunControl& control,
                       MaskLessons& out) {
  using torch::autograd::grad;
  const int64_t B = req.inputs.inputIds.rows, T = req.inputs.inputIds.cols;
  const std::vector<at::Tensor> params = m.parameters();
  at::Tensor logits = shiftedLogits(m, req.inputs); // [B, T-1, V], with the graph
  const at::Tensor labels = gridRows(req.inputs.labels, 0, B, m.device).narrow(1, 1, T - 1);
  const at::Tensor valid = labels != kIgnoreIndex;
  const at::Tensor nll = -at::log_softmax(logits, -1).gather(2, labels.clamp_min(0).unsqueeze(2)).squeeze(2) * valid;
  const int64_t graded = valid.sum().item<int64_t>();
  const at::Tensor loss = nll.sum() / double(std::max<int64_t>(1, graded));
  const at::Tensor perLogit = grad({loss}, {logits}, {}, /*retain_graph=*/true)[0];
  out.fullGradientNorm = std::sqrt(sizeOf(grad({loss}, params, {}, true, false, /*allow_unused=*/true)).squared);
  const at::Tensor validCpu = valid.to(at::kCPU).contiguous();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t + 1 < T; ++t) {
      checkCancel(control);
      report(control, 0.1 + 0.6 * double(b * (T - 1) + t) / double(B * (T - 1)),
             "gradient of row " + std::to_string(b) + " position " + std::to_string(t + 1));
      at::Tensor only = at::zeros_like(perLogit);
      only[b][t].copy_(perLogit[b][t]);
      const GradientSize s = sizeOf(grad({logits}, params, {only}, true, false, true));
      PositionGradient pg;
      pg.row = b;
      pg.position = t + 1;
      pg.role = std::clamp<int64_t>(req.roles.at(b, t + 1), 0, kRoleCount - 1);
      pg.graded = validCpu[b][t].item<bool>();
      pg.norm = std::sqrt(s.squared);
      pg.nonZero = s.nonZero;
      out.positions.push_back(pg);
    }
}

// One AdamW step (engine/Trainer: microLoss, clipGradients, adamwUpdate) on a fresh float32 copy of
// base: the loss is the graded NLL sum over max(1, graded), backpropagated even when nothing is graded
// (the trainer itself skips such a micro-batch), so the gradients exist and are measured.
StepOutcome stepOnce(const TransformerModel& base, const LessonsRequest& req, const IntGrid& labels,
                     const TrainSettings& settings) {
  TransformerModel m = ownedCopy(base, base.device);
  AdamState adam = adamFor(m);
  std::vector<at::Tensor> before;
  for (const at::Tensor& p : adam.params) before.push_back(p.detach().clone());
  TrainBatch batch{req.inputs, req.roles};
  batch.inputs.labels = labels;
  const MicroLoss ml = microLoss(m, batch);
  StepOutcome out;
  out.graded = ml.graded;
  const at::Tensor loss = ml.sum / double(std::max<int64_t>(1, ml.graded));
  out.loss = loss.item<double>();
  loss.backward();
  std::vector<at::Tensor> grads;
  for (const at::Tensor& p : adam.params) grads.push_back(p.grad());
  out.nonZeroGradients = sizeOf(grads).nonZero;
  out.gradNorm = clipGradients(adam.params, settings.clipNorm);
  adamwUpdate(adam, settings, settings.learningRate);
  at::NoGradGuard ng;
  for (size_t i = 0; i < before.size(); ++i) // bits, not values: -0.0 against 0.0 counts as moved
    out.weightsMoved += (before[i].view(at::kInt) != adam.params[i].detach().view(at::kInt)).sum().item<int64_t>();
  return out;
}

// The graded NLL of a forward: the batch's mean and one row's mean (NaN when nothing is graded).
struct Scored {
  at::Tensor logits;
  double loss = 0.0, rowLoss = 0.0;
  int64_t graded = 0, rowGraded = 0;
};
Scored score(const TransformerModel& m, const ForwardInputs& in, int64_t row) {
  at::NoGradGuard ng;
  const int64_t B = in.inputIds.rows, T = in.inputIds.cols;
  Scored s;
  s.logits = shiftedLogits(m, in);
  const at::Tensor labels = gridRows(in.labels, 0, B, m.device).narrow(1, 1, T - 1);
  const at::Tensor valid = labels != kIgnoreIndex;
  const at::Tensor nll =
      (-at::log_softmax(s.logits, -1).gather(2, labels.clamp_min(0).unsqueeze(2)).squeeze(2) * valid).to(at::kDouble);
  s.graded = valid.sum().item<int64_t>();
  s.loss = s.graded > 0 ? nll.sum().item<double>() / double(s.graded) : std::nan("");
  if (row >= 0) {
    s.rowGraded = valid[row].sum().item<int64_t>();
    s.rowLoss = s.rowGraded > 0 ? nll[row].sum().item<double>() / double(s.rowGraded) : std::nan("");
  }
  return s;
}

} // namespace

MaskLessons computeLessons(TorchModel& tm, const LessonsRequest& req, const RunControl& control) {
  const TransformerModel& model = tm.model();
  validateLessons(req, model.config.vocabSize);
  MaskLessons out;
  out.device = tm.info().device;
  // A named string, not a literal: GCC 12's -Warray-bounds misfires on push_back of a literal here.
  static const std::string kFloat32Note = "measured on a float32 copy of the weights";
  if (model.dtype != at::kFloat) out.notes.push_back(kFloat32Note);
  report(control, 0.0, "lessons: copying the weights");
  TransformerModel work = ownedCopy(model, model.device);
  out.weights = work.parameterCount();
  {
    work.setRequiresGrad(true);
    positionGradients(work, req, control, out);
    work.setRequiresGrad(false);
  }
  checkCancel(control);
  report(control, 0.7, "lessons: AdamW steps");
  TrainSettings noDecay = req.step;
  noDecay.weightDecay = 0.0;
  out.learningRate = req.step.learningRate;
  const IntGrid allIgnored(req.inputs.labels.rows, req.inputs.labels.cols, kIgnoreIndex);
  out.allIgnored = stepOnce(model, req, allIgnored, noDecay);
  out.asGiven = stepOnce(model, req, req.inputs.labels, noDecay);
  out.weightDecay = req.step.weightDecay;
  out.movedByDecayAlone = stepOnce(model, req, allIgnored, req.step).weightsMoved;
  checkCancel(control);
  report(control, 0.9, "lessons: prompt token and label flip");
  const Scored given = score(work, req.inputs, req.probe.row);
  if (req.probe.row >= 0) {
    ForwardInputs changed = req.inputs;
    out.probeTokenBefore = changed.inputIds.at(req.probe.row, req.probe.position);
    changed.inputIds.at(req.probe.row, req.probe.position) = req.probe.token;
    const Scored after = score(work, changed, req.probe.row);
    out.probed = true;
    out.probe = req.probe;
    out.rowGraded = given.rowGraded;
    out.rowLossBefore = given.rowLoss;
    out.rowLossAfter = after.rowLoss;
    out.lossBefore = given.loss;
    out.lossAfter = after.loss;
  }
  if (!req.flippedLabels.empty()) {
    ForwardInputs flipped = req.inputs;
    flipped.labels = req.flippedLabels;
    const Scored other = score(work, flipped, -1);
    out.flipCompared = true;
    out.lossFlipped = other.loss;
    out.gradedFlipped = other.graded;
    at::NoGradGuard ng;
    out.maxLogitChangeFlip = (given.logits - other.logits).abs().max().item<double>();
  }
  report(control, 1.0, "lessons done");
  return out;
}

} // namespace maskscope::engine
