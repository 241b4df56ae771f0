// The ForwardEngine / ForwardModel implementations behind the plain interface (core/forward/ForwardEngine.h):
// model loading (folder, sharded, in-memory builtin, random), the forward with attention capture,
// and the mask comparison with role shares, gradient norms and logit changes. Row chunks keep
// memory bounded; CUDA out-of-memory halves the chunk, then falls back to the CPU.
#include "core/forward/ForwardEngine.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"
#include "engine/Trainer.h"
#include "engine/TransformerModel.h"

#include <nlohmann/json.hpp>
#include <torch/cuda.h>

#include <cmath>
#include <limits>

namespace maskscope::engine {

std::map<std::string, TensorGrid> readTorchBatch(const std::string& path); // TorchBatchFile.cpp

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void checkCancel(const RunControl& c) {
  if (c.cancel && c.cancel->load()) throw std::runtime_error("cancelled");
}

void report(const RunControl& c, double f, const std::string& text) {
  if (c.progress) c.progress(f, text);
}

// Shard file names from model.safetensors.index.json (names only: no folders, no "..").
std::vector<std::string> shardNames(const std::string& indexText, const std::string& source) {
  const nlohmann::json j = parseJsonOrThrow(indexText, {source});
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    throw std::runtime_error(source + " (weight_map): missing");
  std::vector<std::string> names;
  for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
    if (!it.value().is_string()) throw std::runtime_error(source + " (weight_map." + it.key() + "): not a file name");
    std::string f = it.value().get<std::string>();
    if (f.empty() || f.find('/') != std::string::npos || f.find("..") != std::string::npos)
      throw std::runtime_error(source + " (weight_map." + it.key() + "): '" + f + "' is not a plain file name");
    if (std::find(names.begin(), names.end(), f) == names.end()) names.push_back(f);
  }
  if (names.empty()) throw std::runtime_error(source + " (weight_map): empty");
  return names;
}

at::Tensor gridRows(const IntGrid& g, int64_t r0, int64_t n, at::Device d) {
  auto* p = const_cast<int64_t*>(g.values.data() + r0 * g.cols);
  return at::from_blob(p, {n, g.cols}, at::kLong).clone().to(d);
}

void validateGrid(const IntGrid& g, const IntGrid& ids, const char* name, bool optional) {
  if (optional && g.empty()) return;
  if (!g.sameShape(ids) || g.values.size() != size_t(g.rows * g.cols))
    throw std::runtime_error(std::string(name) + " has shape [" + std::to_string(g.rows) + ", " +
                             std::to_string(g.cols) + "], input_ids [" + std::to_string(ids.rows) + ", " +
                             std::to_string(ids.cols) + "]");
}

void validateIds(const IntGrid& g, int64_t vocab, const char* name, bool allowIgnore) {
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t c = 0; c < g.cols; ++c) {
      int64_t v = g.at(r, c);
      if ((v < 0 || v >= vocab) && !(allowIgnore && v == kIgnoreIndex))
        throw std::runtime_error(std::string(name) + "[" + std::to_string(r) + "][" + std::to_string(c) +
                                 "] = " + std::to_string(v) + " is outside the model's vocabulary (0.." +
                                 std::to_string(vocab - 1) + (allowIgnore ? ", or -100)" : ")"));
    }
}

void validateInputs(const ForwardInputs& in, int64_t vocab) {
  const IntGrid& ids = in.inputIds;
  if (ids.rows <= 0 || ids.cols <= 0 || ids.values.size() != size_t(ids.rows * ids.cols))
    throw std::runtime_error("input_ids is empty or malformed");
  if (ids.cols > 32768) throw std::runtime_error("sequence length " + std::to_string(ids.cols) + " is over 32768");
  if (ids.rows * ids.cols > (int64_t(1) << 22)) throw std::runtime_error("the batch holds more than 4M tokens");
  validateGrid(in.attentionMask, ids, "attention_mask", true);
  validateGrid(in.positionIds, ids, "position_ids", true);
  validateGrid(in.labels, ids, "labels", true);
  validateIds(ids, vocab, "input_ids", false);
  if (!in.labels.empty()) validateIds(in.labels, vocab, "labels", true);
}

class TorchModel final : public ForwardModel {
public:
  TorchModel(TransformerModel m, ModelInfo info) : model_(std::move(m)), info_(std::move(info)) {}

  const ModelInfo& info() const override { return info_; }

  ForwardOutput forward(const ForwardInputs& in, const AttentionCapture& capture, bool wantLogits,
                        const RunControl& control) override {
    try {
      return forwardImpl(in, capture, wantLogits, control);
    } catch (const c10::Error& e) {
      throw std::runtime_error(std::string("LibTorch: ") + e.what_without_backtrace());
    }
  }

  LossReport analyse(const LossRequest& req, const RunControl& control) override {
    try {
      return analyseImpl(req, control);
    } catch (const c10::Error& e) {
      throw std::runtime_error(std::string("LibTorch: ") + e.what_without_backtrace());
    }
  }

private:
  TransformerModel model_;
  ModelInfo info_;

  struct Grids {
    const IntGrid* mask;
    const IntGrid* positions;
  };

  // Rows per chunk: the caller's cap, else what keeps one layer's [b, H, T, T] scores near 512 MiB.
  int64_t chunkRows(const RunControl& c, int64_t B, int64_t T) const {
    int64_t perRow = std::max<int64_t>(1, model_.config.heads * T * T * 4 * 3);
    int64_t n = std::max<int64_t>(1, (int64_t(512) << 20) / perRow);
    if (c.maxRowsPerChunk > 0) n = std::min(n, c.maxRowsPerChunk);
    return std::min(n, B);
  }

  at::Tensor hiddenFor(const ForwardInputs& in, Grids g, int64_t r0, int64_t n, AttentionKeep* keep,
                       const std::function<void(size_t)>& afterLayer = {}) {
    at::Device d = model_.device;
    const int64_t T = in.inputIds.cols;
    at::Tensor ids = gridRows(in.inputIds, r0, n, d);
    at::Tensor mask = g.mask->empty() ? at::ones({n, T}, at::TensorOptions().dtype(at::kLong).device(d))
                                      : gridRows(*g.mask, r0, n, d);
    at::Tensor pos = g.positions->empty()
                         ? at::arange(T, at::TensorOptions().dtype(at::kLong).device(d)).unsqueeze(0).expand({n, T})
                         : gridRows(*g.positions, r0, n, d);
    return model_.hidden(ids, mask, pos, keep, afterLayer);
  }

  // Runs body over row chunks; on CUDA out-of-memory retries the chunk with half the rows, and at one
  // row moves the model to the CPU. body must only commit its results once it cannot throw any more.
  void forEachChunk(int64_t B, int64_t T, const RunControl& control, const std::string& what,
                    std::vector<std::string>& notes, const std::function<void(int64_t, int64_t)>& body) {
    int64_t chunk = chunkRows(control, B, T);
    for (int64_t r = 0; r < B;) {
      checkCancel(control);
      report(control, double(r) / double(B), what + " rows " + std::to_string(r) + "/" + std::to_string(B));
      int64_t n = std::min(chunk, B - r);
      try {
        body(r, n);
        r += n;
      } catch (const c10::Error& e) {
        if (!isOutOfMemory(e) || !model_.device.is_cuda()) throw;
        if (n > 1) {
          chunk = std::max<int64_t>(1, n / 2);
          notes.push_back("CUDA out of memory: retrying with " + std::to_string(chunk) + " rows at a time");
        } else {
          model_.moveTo(at::kCPU, at::kFloat);
          info_.device = "cpu";
          info_.computeDtype = "float32";
          notes.push_back("CUDA out of memory even for one row: continued on the CPU in float32");
        }
      }
    }
    report(control, 1.0, what + " done");
  }

  // -log p(targets[t][j] | position t) from one row's final hidden states h [n, hidden] and targets
  // [n, k] -> [n, k] float32, as logsumexp(logits) - logits[target]. By chunks of positions, so only
  // [chunk, V] logits exist at once (64 MB) instead of [T, V] (620 MB at T = 1024, V = 152k, twice
  // with log_softmax's output): the forward's peak memory stays at one layer's activations.
  at::Tensor targetNll(const at::Tensor& h, const at::Tensor& targets) const {
    const int64_t n = h.size(0);
    const int64_t step = std::max<int64_t>(1, (int64_t(16) << 20) / std::max<int64_t>(1, model_.config.vocabSize));
    if (n == 0) return at::zeros({0, targets.size(1)}, h.options().dtype(at::kFloat)); // a one-token row
    std::vector<at::Tensor> parts;
    for (int64_t t0 = 0; t0 < n; t0 += step) {
      const int64_t c = std::min(step, n - t0);
      at::Tensor lg = model_.logits(h.narrow(0, t0, c)); // [c, V] float32
      parts.push_back(at::logsumexp(lg, -1, true) - lg.gather(1, targets.narrow(0, t0, c)));
    }
    return at::cat(parts, 0);
  }

  ForwardOutput forwardImpl(const ForwardInputs& in, const AttentionCapture& capture, bool wantLogits,
                            const RunControl& control) {
    validateInputs(in, model_.config.vocabSize);
    for (int l : capture.layers)
      if (l < 0 || l >= model_.config.layers)
        throw std::runtime_error("attention capture: no layer " + std::to_string(l));
    for (int h : capture.heads)
      if (h < 0 || h >= model_.config.heads)
        throw std::runtime_error("attention capture: no head " + std::to_string(h));
    const int64_t B = in.inputIds.rows, T = in.inputIds.cols, V = model_.config.vocabSize;
    if (wantLogits && B * T * V > (int64_t(1) << 28)) throw std::runtime_error("logits requested for over 256M values");
    ForwardOutput out;
    out.perTokenNll.assign(size_t(B), std::vector<double>(size_t(T), 0.0));
    if (wantLogits) out.logits.assign(size_t(B * T * V), 0.0f);
    std::map<int, std::vector<at::Tensor>> kept;
    double lossSum = 0;
    int64_t graded = 0;
    c10::InferenceMode guard;
    forEachChunk(B, T, control, "forward", out.notes, [&](int64_t r0, int64_t n) {
      AttentionKeep keep{capture.layers, capture.heads, {}};
      // Progress after every layer (the logits take the last share); cancel stops between layers.
      const int64_t L = model_.config.layers;
      auto afterLayer = [&, r0, n](size_t l) {
        report(control, (double(r0) + double(n) * double(l + 1) / double(L + 1)) / double(B),
               "forward rows " + std::to_string(r0) + "-" + std::to_string(r0 + n - 1) + ": layer " +
                   std::to_string(l + 1) + "/" + std::to_string(L));
        checkCancel(control); // before the next layer starts
      };
      at::Tensor h = hiddenFor(in, {&in.attentionMask, &in.positionIds}, r0, n,
                               capture.layers.empty() ? nullptr : &keep, afterLayer);
      std::vector<std::vector<double>> nll(static_cast<size_t>(n));
      std::vector<at::Tensor> rowLogits;
      double sum = 0;
      int64_t count = 0;
      for (int64_t i = 0; i < n; ++i) {
        // Targets [T-1, 1 or 2]: the next input id, and the label when there are labels.
        at::Tensor next = gridRows(in.inputIds, r0 + i, 1, model_.device)[0].narrow(0, 1, T - 1);
        at::Tensor lab =
            in.labels.empty() ? at::Tensor() : gridRows(in.labels, r0 + i, 1, model_.device)[0].narrow(0, 1, T - 1);
        at::Tensor targets = lab.defined() ? at::stack({next, lab.clamp_min(0)}, 1) : next.unsqueeze(1);
        at::Tensor terms = targetNll(h[i].narrow(0, 0, T - 1), targets); // [T-1, 1 or 2]
        at::Tensor cpu = terms.select(1, 0).to(at::kCPU, at::kDouble).contiguous();
        nll[size_t(i)].assign(cpu.data_ptr<double>(), cpu.data_ptr<double>() + (T - 1));
        nll[size_t(i)].push_back(0.0);
        if (lab.defined()) {
          at::Tensor valid = lab != kIgnoreIndex;
          sum += (terms.select(1, 1) * valid).sum().item<double>();
          count += valid.sum().item<int64_t>();
        }
        if (wantLogits) rowLogits.push_back(model_.logits(h[i]).to(at::kCPU).contiguous());
      }
      // commit
      for (int64_t i = 0; i < n; ++i) out.perTokenNll[size_t(r0 + i)] = std::move(nll[size_t(i)]);
      for (size_t i = 0; i < rowLogits.size(); ++i)
        std::copy(rowLogits[i].data_ptr<float>(), rowLogits[i].data_ptr<float>() + T * V,
                  out.logits.begin() + (r0 + int64_t(i)) * T * V);
      for (auto& [layer, t] : keep.kept) kept[layer].push_back(t);
      lossSum += sum;
      graded += count;
    });
    out.device = info_.device;
    out.lossSum = lossSum;
    out.gradedCount = graded;
    out.loss = graded > 0 ? lossSum / double(graded) : kNaN;
    for (auto& [layer, parts] : kept) {
      at::Tensor all = at::cat(parts, 0); // [B, Hk, T, T]
      for (int64_t hi = 0; hi < all.size(1); ++hi) {
        CapturedAttention a;
        a.layer = layer;
        a.head = capture.heads.empty() ? int(hi) : capture.heads[size_t(hi)];
        a.batch = B;
        a.length = T;
        at::Tensor one = all.select(1, hi).contiguous();
        a.probs.assign(one.data_ptr<float>(), one.data_ptr<float>() + one.numel());
        out.attention.push_back(std::move(a));
      }
    }
    return out;
  }

  // Distinct (mask, positions) pairs need one forward each; label sets reuse them.
  struct ForwardPlan {
    std::vector<Grids> forwards;
    std::vector<const IntGrid*> labelSets; // as given, then each variant
    std::vector<size_t> labelForward;      // labelSets[i] is scored on forwards[labelForward[i]]
    std::optional<size_t> compareForward;  // the forward of req.compareLogitsWith
  };

  static ForwardPlan planForwards(const LossRequest& req) {
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

  static void validateLossRequest(const LossRequest& req, int64_t V) {
    const ForwardInputs& in = req.asGiven;
    validateInputs(in, V);
    if (in.labels.empty()) throw std::runtime_error("the loss needs labels");
    validateGrid(req.roles, in.inputIds, "roles", false);
    for (const LossVariant& v : req.variants) {
      validateGrid(v.attentionMask, in.inputIds, (v.name + ".attention_mask").c_str(), true);
      validateGrid(v.positionIds, in.inputIds, (v.name + ".position_ids").c_str(), true);
      validateGrid(v.labels, in.inputIds, (v.name + ".labels").c_str(), false);
      validateIds(v.labels, V, (v.name + ".labels").c_str(), true);
    }
  }

  LossReport analyseImpl(const LossRequest& req, const RunControl& control) {
    const ForwardInputs& in = req.asGiven;
    validateLossRequest(req, model_.config.vocabSize);
    const int64_t B = in.inputIds.rows, T = in.inputIds.cols;
    LossReport rep;
    const ForwardPlan plan = planForwards(req);
    const std::vector<Grids>& forwards = plan.forwards;
    const std::vector<const IntGrid*>& labelSets = plan.labelSets;
    const std::vector<size_t>& labelForward = plan.labelForward;
    const std::optional<size_t> compareForward = plan.compareForward;

    std::vector<double> sums(labelSets.size(), 0.0);
    std::vector<int64_t> counts(labelSets.size(), 0);
    rep.perTokenNll.assign(size_t(B), std::vector<double>(size_t(T), 0.0));
    double maxChange = 0.0;
    {
      c10::InferenceMode guard;
      forEachChunk(B, T, control, "loss", rep.notes, [&](int64_t r0, int64_t n) {
        std::vector<at::Tensor> hs;
        for (const Grids& g : forwards) hs.push_back(hiddenFor(in, g, r0, n, nullptr));
        std::vector<double> s(labelSets.size(), 0.0);
        std::vector<int64_t> cnt(labelSets.size(), 0);
        RoleTally tallies[kRoleCount];
        std::vector<std::vector<double>> nll(static_cast<size_t>(n));
        double change = 0.0;
        for (int64_t i = 0; i < n; ++i) {
          const int64_t row = r0 + i;
          std::vector<at::Tensor> logps;
          for (const at::Tensor& h : hs) logps.push_back(at::log_softmax(model_.logits(h[i]), -1).narrow(0, 0, T - 1));
          at::Tensor next = gridRows(in.inputIds, row, 1, model_.device)[0].narrow(0, 1, T - 1);
          at::Tensor tok = (-logps[0].gather(1, next.unsqueeze(1)).squeeze(1)).to(at::kCPU, at::kDouble).contiguous();
          nll[size_t(i)].assign(tok.data_ptr<double>(), tok.data_ptr<double>() + (T - 1));
          nll[size_t(i)].push_back(0.0);
          for (size_t ls = 0; ls < labelSets.size(); ++ls) {
            at::Tensor lab = gridRows(*labelSets[ls], row, 1, model_.device)[0].narrow(0, 1, T - 1);
            at::Tensor valid = lab != kIgnoreIndex;
            at::Tensor terms = (-logps[labelForward[ls]].gather(1, lab.clamp_min(0).unsqueeze(1)).squeeze(1)) * valid;
            s[ls] += terms.sum().item<double>();
            cnt[ls] += valid.sum().item<int64_t>();
            if (ls == 0) { // role shares under the as-given masks, by the role of the target token
              at::Tensor t = terms.to(at::kCPU, at::kDouble).contiguous();
              at::Tensor vcpu = valid.to(at::kCPU).contiguous();
              for (int64_t t1 = 0; t1 < T - 1; ++t1) {
                if (!vcpu.data_ptr<bool>()[t1]) continue;
                int64_t role = req.roles.at(row, t1 + 1);
                if (role < 0 || role >= kRoleCount) role = RoleUnknown;
                tallies[role].graded += 1;
                tallies[role].lossSum += t.data_ptr<double>()[t1];
              }
            }
          }
          if (compareForward && *compareForward != 0) {
            // Both logits in full (soft-capping makes them non-linear in the hidden state); exactly 0
            // where the hidden states agree.
            at::Tensor diff = (model_.logits(hs[0][i]) - model_.logits(hs[*compareForward][i])).abs().amax(-1); // [T]
            at::Tensor real = gridRows(req.roles, row, 1, model_.device)[0] != RolePad;
            if (real.any().item<bool>()) change = std::max(change, diff.masked_select(real).max().item<double>());
          }
        }
        // commit
        for (size_t ls = 0; ls < labelSets.size(); ++ls) {
          sums[ls] += s[ls];
          counts[ls] += cnt[ls];
        }
        for (int k = 0; k < kRoleCount; ++k) {
          rep.roles[k].graded += tallies[k].graded;
          rep.roles[k].lossSum += tallies[k].lossSum;
        }
        for (int64_t i = 0; i < n; ++i) rep.perTokenNll[size_t(r0 + i)] = std::move(nll[size_t(i)]);
        maxChange = std::max(maxChange, change);
      });
    }
    rep.gradedCount = counts[0];
    rep.asGiven = counts[0] > 0 ? sums[0] / double(counts[0]) : kNaN;
    for (size_t i = 0; i < req.variants.size(); ++i) {
      rep.variantLoss.emplace_back(req.variants[i].name,
                                   counts[i + 1] > 0 ? sums[i + 1] / double(counts[i + 1]) : kNaN);
      rep.variantGraded.emplace_back(req.variants[i].name, counts[i + 1]);
    }
    if (compareForward) {
      rep.logitsCompared = true;
      rep.maxLogitChangeReal = *compareForward == 0 ? 0.0 : maxChange;
    }
    if (req.gradients && rep.gradedCount > 0) gradientNorms(req, control, rep);
    rep.device = info_.device;
    return rep;
  }

  // ||grad of (sum of graded NLL terms whose target is a pad) / N|| and the same for real targets,
  // N = the as-given graded count: the two parts of the as-given mean loss's gradient.
  void gradientNorms(const LossRequest& req, const RunControl& control, LossReport& rep) {
    const ForwardInputs& in = req.asGiven;
    const int64_t B = in.inputIds.rows, T = in.inputIds.cols;
    std::vector<at::Tensor> params = model_.parameters();
    // Several row chunks: float32 sums over the chunks, made from the first chunk's gradients. One
    // chunk (the app's selected row): squared norms straight from each gradient set, freed before the
    // next, so no model-sized copy beyond one set of gradients.
    std::vector<at::Tensor> accPad(params.size()), accReal(params.size());
    double sqPad = 0, sqReal = 0;
    struct GradOff {
      std::vector<at::Tensor>& ps;
      ~GradOff() {
        for (at::Tensor& p : ps) p.requires_grad_(false);
      }
    } off{params};
    for (at::Tensor& p : params) p.requires_grad_(true);
    forEachChunk(B, T, control, "gradients", rep.notes, [&](int64_t r0, int64_t n) {
      at::Tensor padSum, realSum;
      int64_t padCount = 0, realCount = 0;
      gradedSums(req, r0, n, padSum, realSum, padCount, realCount);
      if (n == B) { // the only chunk: commit two numbers at the end
        const double pad =
            padCount > 0 ? squaredNorm(torch::autograd::grad({padSum}, params, {}, true, false, true)) : 0;
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

  // The summed NLL of rows r0 .. r0+n of the graded targets that are pads, and of those that are
  // not (scalars with their autograd graph), with their counts.
  void gradedSums(const LossRequest& req, int64_t r0, int64_t n, at::Tensor& padSum, at::Tensor& realSum,
                  int64_t& padCount, int64_t& realCount) {
    const ForwardInputs& in = req.asGiven;
    const int64_t T = in.inputIds.cols;
    at::Tensor h = hiddenFor(in, {&in.attentionMask, &in.positionIds}, r0, n, nullptr);
    padSum = at::zeros({}, h.options().dtype(at::kFloat));
    realSum = padSum.clone();
    for (int64_t i = 0; i < n; ++i) {
      at::Tensor logp = at::log_softmax(model_.logits(h[i]), -1).narrow(0, 0, T - 1);
      at::Tensor lab = gridRows(in.labels, r0 + i, 1, model_.device)[0].narrow(0, 1, T - 1);
      at::Tensor roles = gridRows(req.roles, r0 + i, 1, model_.device)[0].narrow(0, 1, T - 1);
      at::Tensor valid = lab != kIgnoreIndex;
      at::Tensor isPad = valid.logical_and(roles == RolePad), isReal = valid.logical_and(roles != RolePad);
      at::Tensor terms = -logp.gather(1, lab.clamp_min(0).unsqueeze(1)).squeeze(1);
      padSum = padSum + (terms * isPad).sum();
      realSum = realSum + (terms * isReal).sum();
      padCount += isPad.sum().item<int64_t>();
      realCount += isReal.sum().item<int64_t>();
    }
  }

  static void accumulate(at::Tensor& acc, const at::Tensor& g) {
    if (!g.defined()) return;
    if (acc.defined())
      acc.add_(g.to(at::kFloat));
    else
      acc = g.to(at::kFloat);
  }

  // Sum of squares in float64, 4M values at a time (no float64 copy of a whole embedding).
  static double squaredNorm(const std::vector<at::Tensor>& tensors) {
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
};

} // namespace

at::Device resolveDevice(const std::string& deviceName) {
  if (deviceName == "cuda" || deviceName == "auto") {
    if (torch::cuda::is_available()) return at::Device(at::kCUDA, 0);
    if (deviceName == "cuda")
      throw std::runtime_error(std::string("--device cuda: LibTorch sees no CUDA GPU (LibTorch ") + TORCH_VERSION +
                               "); see docs/cuda.md to build the engine against a CUDA LibTorch");
    return at::kCPU;
  }
  if (deviceName != "cpu") throw std::runtime_error("unknown device '" + deviceName + "' (auto, cpu, cuda)");
  return at::kCPU;
}

TransformerModel loadTransformerModel(const ModelSource& source, at::Device device, const RunControl& control) {
  report(control, 0.0, "loading " + source.spec);
  std::optional<TransformerModel> model;
  if (source.randomSeed) {
    model = TransformerModel::random(parseModelConfig(source.configJson, source.spec + " config"), *source.randomSeed,
                                     device);
  } else if (!source.files.empty()) {
    auto find = [&](const std::string& name) -> const MemoryFile* {
      for (const MemoryFile& f : source.files)
        if (f.name == name) return &f;
      return nullptr;
    };
    const MemoryFile* cfg = find("config.json");
    if (!cfg) throw std::runtime_error(source.spec + ": no config.json");
    ModelConfig config =
        parseModelConfig(std::string(static_cast<const char*>(cfg->data), cfg->size), source.spec + "/config.json");
    std::vector<SafetensorsView> files;
    std::vector<std::string> names{"model.safetensors"};
    if (!find("model.safetensors")) {
      const MemoryFile* idx = find("model.safetensors.index.json");
      if (!idx) throw std::runtime_error(source.spec + ": no model.safetensors");
      names = shardNames(std::string(static_cast<const char*>(idx->data), idx->size),
                         source.spec + "/model.safetensors.index.json");
    }
    for (const std::string& n : names) {
      const MemoryFile* f = find(n);
      if (!f) throw std::runtime_error(source.spec + ": no " + n);
      files.push_back(viewSafetensors(static_cast<const uint8_t*>(f->data), f->size, source.spec + "/" + n));
    }
    model = TransformerModel::fromSafetensors(config, files, device, /*copyWeights=*/true);
  } else {
    const std::string dir = source.folder.empty() ? source.spec : source.folder;
    ModelConfig config = parseModelConfig(readFileCapped(dir + "/config.json", kModelConfigCap), dir + "/config.json");
    std::vector<std::string> names{"model.safetensors"};
    if (!fileExists(dir + "/model.safetensors")) {
      const std::string idx = dir + "/model.safetensors.index.json";
      if (!fileExists(idx)) throw std::runtime_error(dir + ": no model.safetensors or model.safetensors.index.json");
      names = shardNames(readFileCapped(idx, 64 << 20), idx);
    }
    std::vector<SafetensorsView> files;
    for (size_t i = 0; i < names.size(); ++i) {
      checkCancel(control);
      report(control, double(i) / double(names.size()), "mapping " + names[i]);
      files.push_back(mapSafetensors(dir + "/" + names[i]));
    }
    model = TransformerModel::fromSafetensors(config, files, device, /*copyWeights=*/false);
  }
  return std::move(*model);
}

namespace {

// The config's ModelInfo (core/forward/ModelConfig.h) plus what the loaded tensors add.
ModelInfo describe(const TransformerModel& m) {
  ModelInfo i = modelInfoFromConfig(m.config);
  i.weightDtype = m.weightDtype;
  i.computeDtype = m.dtype == at::kFloat ? "float32" : m.dtype == at::kBFloat16 ? "bfloat16" : "float16";
  i.device = m.device.is_cuda() ? "cuda" : "cpu";
  i.parameterCount = m.parameterCount();
  return i;
}

class TorchEngine final : public ForwardEngine {
public:
  int abiVersion() const override { return kForwardEngineAbiVersion; }

  std::string description() const override {
    return std::string("LibTorch ") + TORCH_VERSION + (torch::cuda::is_available() ? ", CUDA available" : ", CPU");
  }

  bool cudaAvailable() const override { return torch::cuda::is_available(); }

  std::shared_ptr<ForwardModel> loadModel(const ModelSource& source, const std::string& device,
                                          const RunControl& control) override {
    try {
      return loadImpl(source, device, control);
    } catch (const c10::Error& e) {
      throw std::runtime_error(source.spec + ": LibTorch: " + e.what_without_backtrace());
    }
  }

  std::map<std::string, TensorGrid> loadTorchBatch(const std::string& path) override { return readTorchBatch(path); }

  TrainReport trainAB(const TrainRequest& request, const TrainObserver& observer, const RunControl& control) override {
    try {
      return trainTwoRuns(request, observer, control);
    } catch (const c10::Error& e) {
      throw std::runtime_error(request.model.spec + ": LibTorch: " + e.what_without_backtrace());
    }
  }

private:
  std::shared_ptr<ForwardModel> loadImpl(const ModelSource& source, const std::string& deviceName,
                                         const RunControl& control) {
    std::optional<TransformerModel> model;
    model.emplace(loadTransformerModel(source, resolveDevice(deviceName), control));
    ModelInfo info = describe(*model);
    report(control, 1.0, "loaded " + source.spec);
    return std::make_shared<TorchModel>(std::move(*model), std::move(info));
  }
};

} // namespace
} // namespace maskscope::engine

extern "C" __attribute__((visibility("default"))) maskscope::ForwardEngine* maskscope_create_forward_engine(int key) {
  if (key != maskscope::forwardEngineAbiKey()) return nullptr;
  return new maskscope::engine::TorchEngine;
}
