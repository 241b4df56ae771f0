// The loss comparison and its gradients (LossAnalysis.h). Every NLL goes through TorchModel::targetNll,
// so no [T, V] log-softmax is built: distinct (mask, positions) pairs get one forward each, and the
// label sets scored on a forward share one pass over its logits, a chunk of positions at a time.
#include "engine/LossAnalysis.h"
#include "engine/InputChecks.h"

#include <cmath>
#include <limits>
#include <optional>

namespace maskscope::engine {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using Grids = TorchModel::Grids;

// Distinct (mask, positions) pairs need one forward each; label sets reuse them.
struct ForwardPlan {
  std::vector<Grids> forwards;
  std::vector<const IntGrid*> labelSets; // as given, then each variant
  std::vector<size_t> labelForward;      // labelSets[i] is scored on forwards[labelForward[i]]
  std::optional<size_t> compareForward;  // the forward of req.compareLogitsWith
};

ForwardPlan planForwards(const LossRequest& req) {
  const ForwardInputs& in = req.asGiven;
  ForwardPlan p{{{&in.attentionMask, &in.positionIds}}, {&in.labels}, {0}, std::nullopt};
  for (const LossVariant& v : req.variants) {
    size_t f = 0;
    while (f < p.forwards.size() &&
           !(*p.forwards[f].mask == v.attentionMask && *p.forwards[f].positions == v.positionIds))
      ++f;
    if (f == p.forwards.size()) p.forwards.push_back({&v.attentionMask, &v.positionIds});
    p.labelSets.push_back(&v.labels);
    p.labelForward.push_back(f);
  }
  for (size_t i = 0; i < req.variants.size(); ++i)
    if (req.variants[i].name == req.compareLogitsWith) p.compareForward = p.labelForward[i + 1];
  return p;
}

// What one row chunk adds to the report, committed once the chunk cannot throw any more.
struct ChunkScores {
  std::vector<double> sums;             // per label set: summed NLL of the graded targets
  std::vector<int64_t> counts;          // per label set: graded targets
  RoleTally roles[kRoleCount];          // the as-given label set, by the target token's role
  std::vector<std::vector<double>> nll; // [n][T] next-token NLL under the as-given masks
  double maxChange = 0.0;               // largest logit change at a real position
};

// The as-given graded terms of one row ([T-1], 0 where not graded) added to the role tallies, by the
// role of the target token (position t + 1).
void tallyRoles(const LossRequest& req, int64_t row, const at::Tensor& terms, const at::Tensor& valid,
                RoleTally (&tallies)[kRoleCount]) {
  const at::Tensor t = terms.to(at::kCPU, at::kDouble).contiguous();
  const at::Tensor v = valid.to(at::kCPU).contiguous();
  for (int64_t t1 = 0; t1 < t.size(0); ++t1) {
    if (!v.data_ptr<bool>()[t1]) continue;
    int64_t role = req.roles.at(row, t1 + 1);
    if (role < 0 || role >= kRoleCount) role = RoleUnknown;
    tallies[role].graded += 1;
    tallies[role].lossSum += t.data_ptr<double>()[t1];
  }
}

// Scores row `row` from each forward's final hidden states hs[f] ([T, hidden]). One targetNll per
// forward, whose columns are the next input id (forward 0: the per-token NLL) and the labels of every
// label set scored on that forward; then the logit change against the compared forward.
void scoreRow(const TorchModel& tm, const LossRequest& req, const ForwardPlan& plan, const std::vector<at::Tensor>& hs,
              int64_t row, ChunkScores& out, std::vector<double>& nll) {
  const int64_t T = req.asGiven.inputIds.cols;
  const at::Device d = tm.model().device;
  for (size_t f = 0; f < hs.size(); ++f) {
    std::vector<at::Tensor> columns, labels; // [T-1] each: targets, and the labels they come from
    std::vector<size_t> sets;                // the label set of each labels[c]
    if (f == 0) columns.push_back(gridRows(req.asGiven.inputIds, row, 1, d)[0].narrow(0, 1, T - 1));
    for (size_t ls = 0; ls < plan.labelSets.size(); ++ls) {
      if (plan.labelForward[ls] != f) continue;
      labels.push_back(gridRows(*plan.labelSets[ls], row, 1, d)[0].narrow(0, 1, T - 1));
      columns.push_back(labels.back().clamp_min(0));
      sets.push_back(ls);
    }
    const at::Tensor terms = tm.targetNll(hs[f].narrow(0, 0, T - 1), at::stack(columns, 1)); // [T-1, k]
    if (f == 0) {
      const at::Tensor tok = terms.select(1, 0).to(at::kCPU, at::kDouble).contiguous();
      nll.assign(tok.data_ptr<double>(), tok.data_ptr<double>() + (T - 1));
      nll.push_back(0.0);
    }
    const int64_t firstLabel = f == 0 ? 1 : 0;
    for (size_t c = 0; c < sets.size(); ++c) {
      const at::Tensor valid = labels[c] != kIgnoreIndex;
      const at::Tensor graded = terms.select(1, firstLabel + int64_t(c)) * valid;
      out.sums[sets[c]] += graded.sum().item<double>();
      out.counts[sets[c]] += valid.sum().item<int64_t>();
      if (sets[c] == 0) tallyRoles(req, row, graded, valid, out.roles);
    }
  }
  if (plan.compareForward && *plan.compareForward != 0) {
    const at::Tensor diff = tm.maxLogitChange(hs[0], hs[*plan.compareForward]); // [T]
    const at::Tensor real = gridRows(req.roles, row, 1, d)[0] != RolePad;
    if (real.any().item<bool>()) out.maxChange = std::max(out.maxChange, diff.masked_select(real).max().item<double>());
  }
}

ChunkScores scoreChunk(TorchModel& tm, const LossRequest& req, const ForwardPlan& plan, int64_t r0, int64_t n) {
  std::vector<at::Tensor> hs; // per forward: [n, T, hidden]
  for (const Grids& g : plan.forwards) hs.push_back(tm.hiddenFor(req.asGiven, g, r0, n, nullptr));
  ChunkScores c;
  c.sums.assign(plan.labelSets.size(), 0.0);
  c.counts.assign(plan.labelSets.size(), 0);
  c.nll.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    std::vector<at::Tensor> rowHs;
    for (const at::Tensor& h : hs) rowHs.push_back(h[i]);
    scoreRow(tm, req, plan, rowHs, r0 + i, c, c.nll[size_t(i)]);
  }
  return c;
}

// requires_grad on every weight for the gradient pass, and off again however the pass ends. A
// fallback to the CPU mid-pass replaces the weights, so this switches the model's weights as they are
// then (TransformerModel::setRequiresGrad), never a list taken before the pass.
class WeightGradients {
public:
  explicit WeightGradients(TransformerModel& m) : model_(m) { model_.setRequiresGrad(true); }
  ~WeightGradients() {
    try {
      model_.setRequiresGrad(false); // detaches a weight that is no leaf instead of throwing
    } catch (const std::exception&) {
      // A destructor must not throw (std::terminate); weights left trainable only cost memory later.
    }
  }
  WeightGradients(const WeightGradients&) = delete;
  WeightGradients& operator=(const WeightGradients&) = delete;

private:
  TransformerModel& model_;
};

// The summed NLL of rows r0 .. r0+n of the graded targets that are pads, and of those that are
// not (scalars with their autograd graph), with their counts.
void gradedSums(TorchModel& tm, const LossRequest& req, int64_t r0, int64_t n, at::Tensor& padSum, at::Tensor& realSum,
                int64_t& padCount, int64_t& realCount) {
  const ForwardInputs& in = req.asGiven;
  const int64_t T = in.inputIds.cols;
  const at::Device d = tm.model().device;
  at::Tensor h = tm.hiddenFor(in, {&in.attentionMask, &in.positionIds}, r0, n, nullptr);
  padSum = at::zeros({}, h.options().dtype(at::kFloat));
  realSum = padSum.clone();
  for (int64_t i = 0; i < n; ++i) {
    at::Tensor lab = gridRows(in.labels, r0 + i, 1, d)[0].narrow(0, 1, T - 1);
    at::Tensor roles = gridRows(req.roles, r0 + i, 1, d)[0].narrow(0, 1, T - 1);
    at::Tensor valid = lab != kIgnoreIndex;
    at::Tensor isPad = valid.logical_and(roles == RolePad), isReal = valid.logical_and(roles != RolePad);
    at::Tensor terms = tm.targetNll(h[i].narrow(0, 0, T - 1), lab.clamp_min(0).unsqueeze(1)).squeeze(1); // [T-1]
    padSum = padSum + (terms * isPad).sum();
    realSum = realSum + (terms * isReal).sum();
    padCount += isPad.sum().item<int64_t>();
    realCount += isReal.sum().item<int64_t>();
  }
}

// acc += g in float32, on g's device (a fallback to the CPU moves the later gradients there).
void accumulate(at::Tensor& acc, const at::Tensor& g) {
  if (!g.defined()) return;
  if (!acc.defined()) {
    acc = g.to(at::kFloat);
    return;
  }
  if (acc.device() != g.device()) acc = acc.to(g.device());
  acc.add_(g.to(at::kFloat));
}

// Sum of squares in float64, 4M values at a time (no float64 copy of a whole embedding).
double squaredNorm(const std::vector<at::Tensor>& tensors) {
  at::NoGradGuard ng;
  double sq = 0;
  for (const at::Tensor& g : tensors) {
    if (!g.defined()) continue;
    const at::Tensor flat = g.reshape({-1});
    for (int64_t i = 0; i < flat.numel(); i += int64_t(1) << 22)
      sq += flat.narrow(0, i, std::min<int64_t>(int64_t(1) << 22, flat.numel() - i))
                .to(at::kDouble)
                .pow(2)
                .sum()
                .item<double>();
  }
  return sq;
}

// ||grad of (sum of graded NLL terms whose target is a pad) / N|| and the same for real targets,
// N = the as-given graded count: the two parts of the as-given mean loss's gradient.
void gradientNorms(TorchModel& tm, const LossRequest& req, const RunControl& control, LossReport& rep) {
  const ForwardInputs& in = req.asGiven;
  const int64_t B = in.inputIds.rows, T = in.inputIds.cols;
  // Several row chunks: float32 sums over the chunks, made from the first chunk's gradients. One
  // chunk (the app's selected row): squared norms straight from each gradient set, freed before the
  // next, so no model-sized copy beyond one set of gradients.
  std::vector<at::Tensor> accPad, accReal;
  double sqPad = 0, sqReal = 0;
  WeightGradients trainable(tm.model());
  tm.forEachChunk(B, T, control, "gradients", rep.notes, [&](int64_t r0, int64_t n) {
    const std::vector<at::Tensor> params = tm.model().parameters(); // a fallback to the CPU replaces them
    at::Tensor padSum, realSum;
    int64_t padCount = 0, realCount = 0;
    gradedSums(tm, req, r0, n, padSum, realSum, padCount, realCount);
    if (n == B) { // the only chunk: commit two numbers at the end
      const double pad = padCount > 0 ? squaredNorm(torch::autograd::grad({padSum}, params, {}, true, false, true)) : 0;
      const double real =
          realCount > 0 ? squaredNorm(torch::autograd::grad({realSum}, params, {}, false, false, true)) : 0;
      sqPad = pad;
      sqReal = real;
      return;
    }
    std::vector<at::Tensor> gPad, gReal;
    if (padCount > 0)
      gPad = torch::autograd::grad({padSum}, params, {}, /*retain_graph=*/true, false, /*allow_unused=*/true);
    if (realCount > 0) gReal = torch::autograd::grad({realSum}, params, {}, false, false, true);
    // commit
    at::NoGradGuard ng;
    accPad.resize(params.size());
    accReal.resize(params.size());
    for (size_t k = 0; k < params.size(); ++k) {
      if (k < gPad.size()) accumulate(accPad[k], gPad[k]);
      if (k < gReal.size()) accumulate(accReal[k], gReal[k]);
    }
  });
  sqPad += squaredNorm(accPad);
  sqReal += squaredNorm(accReal);
  rep.gradNormPad = std::sqrt(sqPad) / double(rep.gradedCount);
  rep.gradNormReal = std::sqrt(sqReal) / double(rep.gradedCount);
  rep.gradientsComputed = true;
}

} // namespace

LossReport analyseLoss(TorchModel& tm, const LossRequest& req, const RunControl& control) {
  const ForwardInputs& in = req.asGiven;
  validateLossRequest(req, tm.model().config.vocabSize);
  const int64_t B = in.inputIds.rows, T = in.inputIds.cols;
  const ForwardPlan plan = planForwards(req);
  LossReport rep;
  rep.perTokenNll.assign(size_t(B), std::vector<double>(size_t(T), 0.0));
  std::vector<double> sums(plan.labelSets.size(), 0.0);
  std::vector<int64_t> counts(plan.labelSets.size(), 0);
  double maxChange = 0.0;
  {
    c10::InferenceMode guard;
    tm.forEachChunk(B, T, control, "loss", rep.notes, [&](int64_t r0, int64_t n) {
      ChunkScores c = scoreChunk(tm, req, plan, r0, n);
      // commit
      for (size_t ls = 0; ls < plan.labelSets.size(); ++ls) {
        sums[ls] += c.sums[ls];
        counts[ls] += c.counts[ls];
      }
      for (int k = 0; k < kRoleCount; ++k) {
        rep.roles[k].graded += c.roles[k].graded;
        rep.roles[k].lossSum += c.roles[k].lossSum;
      }
      for (int64_t i = 0; i < n; ++i) rep.perTokenNll[size_t(r0 + i)] = std::move(c.nll[size_t(i)]);
      maxChange = std::max(maxChange, c.maxChange);
    });
  }
  rep.gradedCount = counts[0];
  rep.asGiven = counts[0] > 0 ? sums[0] / double(counts[0]) : kNaN;
  for (size_t i = 0; i < req.variants.size(); ++i) {
    rep.variantLoss.emplace_back(req.variants[i].name, counts[i + 1] > 0 ? sums[i + 1] / double(counts[i + 1]) : kNaN);
    rep.variantGraded.emplace_back(req.variants[i].name, counts[i + 1]);
  }
  if (plan.compareForward) {
    rep.logitsCompared = true;
    rep.maxLogitChangeReal = *plan.compareForward == 0 ? 0.0 : maxChange;
  }
  if (req.gradients && rep.gradedCount > 0) gradientNorms(tm, req, control, rep);
  rep.device = tm.info().device;
  return rep;
}

} // namespace maskscope::engine
