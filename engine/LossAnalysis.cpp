// The loss comparison and its gradients (LossAnalysis.h). Every NLL goes through TorchModel::targetNll,
// so no [T, V] log-softmax is built: distinct (mask, positions) pairs get one forward each, and the
// label sets scored on a forward share one pass over its logits, a chunk of positions at a time. With
// gradients, the as-given forward runs once, with its graph: it gives every score on it and the two
// gradient norms (no second forward).
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
  // With gradients: the as-given graded NLL summed over the terms whose target is a pad, and over the
  // others (scalars with their graph), and their counts.
  at::Tensor padSum, realSum;
  int64_t padCount = 0, realCount = 0;
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
// label set scored on that forward; then the logit change against the compared forward. asGivenTerms
// (when not null) receives the as-given labels' terms [T-1] with their graph (hs[0] may carry one).
void scoreRow(const TorchModel& tm, const LossRequest& req, const ForwardPlan& plan, const std::vector<at::Tensor>& hs,
              int64_t row, ChunkScores& out, std::vector<double>& nll, at::Tensor* asGivenTerms) {
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
    at::Tensor withGraph; // [T-1, k]; a graph only for the as-given terms asked for
    {
      at::AutoGradMode graph(f == 0 && asGivenTerms != nullptr);
      withGraph = tm.targetNll(hs[f].narrow(0, 0, T - 1), at::stack(columns, 1));
    }
    if (f == 0 && asGivenTerms) *asGivenTerms = withGraph.select(1, 1); // label set 0 is forward 0's first
    at::NoGradGuard noGraph;
    const at::Tensor terms = withGraph.detach();
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
    at::NoGradGuard noGraph;
    const at::Tensor diff = tm.maxLogitChange(hs[0].detach(), hs[*plan.compareForward]); // [T]
    const at::Tensor real = gridRows(req.roles, row, 1, d)[0] != RolePad;
    if (real.any().item<bool>()) out.maxChange = std::max(out.maxChange, diff.masked_select(real).max().item<double>());
  }
}

// Adds row `row`'s as-given graded terms [T-1] (with their graph) to c's pad or real sum, by the
// role of the target token.
void addGradedTerms(const TorchModel& tm, const LossRequest& req, int64_t row, const at::Tensor& terms,
                    ChunkScores& c) {
  const int64_t T = req.asGiven.inputIds.cols;
  const at::Device d = tm.model().device;
  const at::Tensor lab = gridRows(req.asGiven.labels, row, 1, d)[0].narrow(0, 1, T - 1);
  const at::Tensor roles = gridRows(req.roles, row, 1, d)[0].narrow(0, 1, T - 1);
  const at::Tensor valid = lab != kIgnoreIndex;
  const at::Tensor isPad = valid.logical_and(roles == RolePad), isReal = valid.logical_and(roles != RolePad);
  c.padSum = c.padSum + (terms * isPad).sum();
  c.realSum = c.realSum + (terms * isReal).sum();
  c.padCount += isPad.sum().item<int64_t>();
  c.realCount += isReal.sum().item<int64_t>();
}

// withGraph: the as-given forward (forward 0) runs with its autograd graph (the weights require grad)
// and c.padSum / c.realSum carry it; every other forward runs without one.
ChunkScores scoreChunk(TorchModel& tm, const LossRequest& req, const ForwardPlan& plan, int64_t r0, int64_t n,
                       bool withGraph) {
  std::vector<at::Tensor> hs; // per forward: [n, T, hidden]
  for (size_t f = 0; f < plan.forwards.size(); ++f) {
    at::AutoGradMode graph(withGraph && f == 0);
    hs.push_back(tm.hiddenFor(req.asGiven, plan.forwards[f], r0, n, nullptr));
  }
  ChunkScores c;
  c.sums.assign(plan.labelSets.size(), 0.0);
  c.counts.assign(plan.labelSets.size(), 0);
  c.nll.resize(size_t(n));
  if (withGraph) c.padSum = c.realSum = at::zeros({}, hs[0].options().dtype(at::kFloat));
  for (int64_t i = 0; i < n; ++i) {
    std::vector<at::Tensor> rowHs;
    for (const at::Tensor& h : hs) rowHs.push_back(h[i]);
    at::Tensor terms;
    scoreRow(tm, req, plan, rowHs, r0 + i, c, c.nll[size_t(i)], withGraph ? &terms : nullptr);
    if (withGraph) addGradedTerms(tm, req, r0 + i, terms, c);
  }
  return c;
}

// requires_grad on every weight for the gradient pass, and off again however the pass ends. A
// fallback to the CPU mid-pass replaces the weights, so this switches the model's weights as they are
// then (TransformerModel::setRequiresGrad), never a list taken before the pass. On the CPU the layers
// are recomputed in the backward meanwhile (TransformerModel::recomputeLayers).
class WeightGradients {
public:
  explicit WeightGradients(TransformerModel& m) : model_(m) {
    model_.setRequiresGrad(true);
    model_.recomputeLayers = true;
  }
  ~WeightGradients() {
    model_.recomputeLayers = false;
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

// The gradients of one chunk's pad and real sums, taken before anything is committed (they may run
// out of memory). ||grad of (sum of graded NLL terms whose target is a pad) / N|| and the same for real
// targets, N = the as-given graded count, are the two parts of the as-given mean loss's gradient.
// Why two vector-Jacobian products: the two numbers are the norms of two separate gradient vectors,
// not of their sum, so one backward of one scalar cannot give both; a batched VJP (two cotangents
// through one backward, as torch.func.vmap over autograd.grad) has no counterpart in LibTorch's C++
// API. The first keeps the graph (retain_graph) for the second: one forward, two backward passes.
struct ChunkGradients {
  double sqPad = 0, sqReal = 0;      // the only chunk: squared norms taken right away (one set of
                                     // gradients alive at a time, no model-sized sums)
  std::vector<at::Tensor> pad, real; // otherwise the gradients, summed over the chunks at commit
};

ChunkGradients chunkGradients(const std::vector<at::Tensor>& params, const ChunkScores& c, bool onlyChunk) {
  using torch::autograd::grad;
  ChunkGradients g;
  const bool both = c.padCount > 0 && c.realCount > 0;
  if (c.padCount > 0) {
    std::vector<at::Tensor> pad = grad({c.padSum}, params, {}, /*retain_graph=*/both, false, /*allow_unused=*/true);
    if (onlyChunk)
      g.sqPad = squaredNorm(pad);
    else
      g.pad = std::move(pad);
  }
  if (c.realCount > 0) {
    std::vector<at::Tensor> real = grad({c.realSum}, params, {}, false, false, true);
    if (onlyChunk)
      g.sqReal = squaredNorm(real);
    else
      g.real = std::move(real);
  }
  return g;
}

// The running sums of the report over the row chunks.
struct Totals {
  std::vector<double> sums;
  std::vector<int64_t> counts;
  double maxChange = 0.0;
  double sqPad = 0, sqReal = 0;      // from a direct chunk
  std::vector<at::Tensor> pad, real; // float32 gradient sums over the chunks

  void commit(ChunkScores& c, ChunkGradients& g, LossReport& rep, int64_t r0, int64_t n) {
    for (size_t ls = 0; ls < sums.size(); ++ls) {
      sums[ls] += c.sums[ls];
      counts[ls] += c.counts[ls];
    }
    for (int k = 0; k < kRoleCount; ++k) {
      rep.roles[k].graded += c.roles[k].graded;
      rep.roles[k].lossSum += c.roles[k].lossSum;
    }
    for (int64_t i = 0; i < n; ++i) rep.perTokenNll[size_t(r0 + i)] = std::move(c.nll[size_t(i)]);
    maxChange = std::max(maxChange, c.maxChange);
    sqPad += g.sqPad;
    sqReal += g.sqReal;
    at::NoGradGuard ng;
    pad.resize(std::max(pad.size(), g.pad.size()));
    real.resize(std::max(real.size(), g.real.size()));
    for (size_t k = 0; k < g.pad.size(); ++k) accumulate(pad[k], g.pad[k]);
    for (size_t k = 0; k < g.real.size(); ++k) accumulate(real[k], g.real[k]);
  }
};

} // namespace

LossReport analyseLoss(TorchModel& tm, const LossRequest& req, const RunControl& control) {
  const ForwardInputs& in = req.asGiven;
  validateLossRequest(req, tm.model().config.vocabSize);
  const int64_t B = in.inputIds.rows, T = in.inputIds.cols;
  const ForwardPlan plan = planForwards(req);
  LossReport rep;
  rep.perTokenNll.assign(size_t(B), std::vector<double>(size_t(T), 0.0));
  Totals tot{std::vector<double>(plan.labelSets.size(), 0.0), std::vector<int64_t>(plan.labelSets.size(), 0)};
  const bool grads = req.gradients;
  // The loss and the gradients are one pass: a simulated out-of-memory in either is one in it.
  RunControl c = control;
  if (c.simulateOutOfMemoryIn == "gradients") c.simulateOutOfMemoryIn = "loss";
  {
    std::optional<WeightGradients> trainable;
    if (grads) trainable.emplace(tm.model());
    c10::InferenceMode guard(!grads);
    tm.forEachChunk(B, T, c, "loss", rep.notes, [&](int64_t r0, int64_t n) {
      ChunkScores cs = scoreChunk(tm, req, plan, r0, n, grads);
      ChunkGradients g = grads ? chunkGradients(tm.model().parameters(), cs, n == B) : ChunkGradients{};
      tot.commit(cs, g, rep, r0, n); // commit
    });
  }
  rep.gradedCount = tot.counts[0];
  rep.asGiven = tot.counts[0] > 0 ? tot.sums[0] / double(tot.counts[0]) : kNaN;
  for (size_t i = 0; i < req.variants.size(); ++i) {
    const double loss = tot.counts[i + 1] > 0 ? tot.sums[i + 1] / double(tot.counts[i + 1]) : kNaN;
    rep.variantLoss.emplace_back(req.variants[i].name, loss);
    rep.variantGraded.emplace_back(req.variants[i].name, tot.counts[i + 1]);
  }
  if (plan.compareForward) {
    rep.logitsCompared = true;
    rep.maxLogitChangeReal = *plan.compareForward == 0 ? 0.0 : tot.maxChange;
  }
  if (grads && rep.gradedCount > 0) {
    rep.gradNormPad = std::sqrt(tot.sqPad + squaredNorm(tot.pad)) / double(rep.gradedCount);
    rep.gradNormReal = std::sqrt(tot.sqReal + squaredNorm(tot.real)) / double(rep.gradedCount);
    rep.gradientsComputed = true;
  }
  rep.device = tm.info().device;
  return rep;
}

} // namespace maskscope::engine
