// The forward pass of the LibTorch module (TorchModel.h): per-token NLL, the loss, attention capture
// and logits, over row chunks with the CUDA out-of-memory fallbacks; analyse() is LossAnalysis.cpp,
// lessons() Lessons.cpp.
#include "engine/TorchModel.h"
#include "engine/InputChecks.h"
#include "engine/Lessons.h"
#include "engine/LogitsHead.h"
#include "engine/LossAnalysis.h"
#include "engine/RunProgress.h"

#ifdef MASKSCOPE_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <cmath>
#include <limits>

namespace maskscope::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// LibTorch's own errors leave the module as std::runtime_error (no torch type crosses the interface).
template <typename Call> auto libtorchErrors(Call&& call) {
  try {
    return call();
  } catch (const c10::Error& e) {
    throw std::runtime_error(std::string("LibTorch: ") + e.what_without_backtrace());
  }
}

// The CUDA caching allocator's peak allocated bytes (torch.cuda.max_memory_allocated) of one call:
// reset when the call starts, read when it ends. 0 on the CPU and in a LibTorch without CUDA.
void resetPeakDeviceMemory(const at::Device& d) {
#ifdef MASKSCOPE_TORCH_CUDA
  if (d.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(d.has_index() ? d.index() : c10::DeviceIndex(0));
#else
  (void)d;
#endif
}
double peakDeviceMemoryMiB(const at::Device& d) {
#ifdef MASKSCOPE_TORCH_CUDA
  if (!d.is_cuda()) return 0;
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(d.has_index() ? d.index() : c10::DeviceIndex(0));
  return double(stats.allocated_bytes[0].peak) / 1048576.0; // [0]: StatType::AGGREGATE
#else
  (void)d;
  return 0;
#endif
}

} // namespace

at::Tensor gridRows(const IntGrid& g, int64_t r0, int64_t n, at::Device d) {
  auto* p = const_cast<int64_t*>(g.values.data() + r0 * g.cols);
  return at::from_blob(p, {n, g.cols}, at::kLong).clone().to(d);
}

ForwardOutput TorchModel::forward(const ForwardInputs& in, const AttentionCapture& capture, bool wantLogits,
                                  const RunControl& control) {
  return libtorchErrors([&] {
    const at::Device d = model_.device; // a CUDA out-of-memory fallback moves the model to the CPU
    resetPeakDeviceMemory(d);
    ForwardOutput out = forwardImpl(in, capture, wantLogits, control);
    out.peakDeviceMemoryMiB = peakDeviceMemoryMiB(d);
    return out;
  });
}

LossReport TorchModel::analyse(const LossRequest& req, const RunControl& control) {
  return libtorchErrors([&] {
    const at::Device d = model_.device;
    resetPeakDeviceMemory(d);
    LossReport rep = analyseLoss(*this, req, control);
    rep.peakDeviceMemoryMiB = peakDeviceMemoryMiB(d);
    return rep;
  });
}

MaskLessons TorchModel::lessons(const LessonsRequest& req, const RunControl& control) {
  return libtorchErrors([&] { return computeLessons(*this, req, control); });
}

int64_t TorchModel::chunkRows(const RunControl& c, int64_t B, int64_t T) const {
  // No [T, T] tensor outlives a block of queries (ChunkedAttention.h): what grows with the rows is the
  // activations the gradient pass keeps, about (10 hidden + 4 intermediate) values per layer and position.
  const ModelConfig& m = model_.config;
  const int64_t perRow = std::max<int64_t>(1, m.layers * T * (10 * m.hiddenSize + 4 * m.intermediateSize) *
                                                  int64_t(at::elementSize(model_.dtype)));
  const int64_t budget = model_.device.is_cuda() ? int64_t(16) << 30 : int64_t(2) << 30;
  int64_t n = std::max<int64_t>(1, budget / perRow);
  if (c.maxRowsPerChunk > 0) n = std::min(n, c.maxRowsPerChunk);
  return std::min(n, B);
}

at::Tensor TorchModel::hiddenFor(const ForwardInputs& in, Grids g, int64_t r0, int64_t n, AttentionKeep* keep,
                                 const std::function<void(size_t)>& afterLayer) {
  at::Device d = model_.device;
  const int64_t T = in.inputIds.cols;
  at::Tensor ids = gridRows(in.inputIds, r0, n, d);
  at::Tensor mask =
      g.mask->empty() ? at::ones({n, T}, at::TensorOptions().dtype(at::kLong).device(d)) : gridRows(*g.mask, r0, n, d);
  at::Tensor pos = g.positions->empty()
                       ? at::arange(T, at::TensorOptions().dtype(at::kLong).device(d)).unsqueeze(0).expand({n, T})
                       : gridRows(*g.positions, r0, n, d);
  return model_.hidden(ids, mask, pos, keep, afterLayer);
}

void TorchModel::fallBackToCpu(std::vector<std::string>& notes, const std::string& why) {
  model_.moveTo(at::kCPU, at::kFloat);
  info_.device = "cpu";
  info_.computeDtype = "float32";
  notes.push_back(why + ": continued on the CPU in float32");
}

void TorchModel::forEachChunk(int64_t B, int64_t T, const RunControl& control, const std::string& what,
                              std::vector<std::string>& notes, const std::function<void(int64_t, int64_t)>& body) {
  int64_t chunk = chunkRows(control, B, T);
  bool simulate = control.simulateOutOfMemoryIn == what; // tests: the first chunk fails as one CUDA row would
  for (int64_t r = 0; r < B;) {
    checkCancel(control);
    report(control, double(r) / double(B), what + " rows " + std::to_string(r) + "/" + std::to_string(B));
    int64_t n = std::min(chunk, B - r);
    if (simulate) {
      simulate = false;
      fallBackToCpu(notes, "simulated out of memory (RunControl::simulateOutOfMemoryIn)");
      continue;
    }
    try {
      body(r, n);
      r += n;
    } catch (const c10::Error& e) {
      if (!isOutOfMemory(e) || !model_.device.is_cuda()) throw;
      if (n > 1) {
        chunk = std::max<int64_t>(1, n / 2);
        notes.push_back("CUDA out of memory: retrying with " + std::to_string(chunk) + " rows at a time");
      } else {
        fallBackToCpu(notes, "CUDA out of memory even for one row");
      }
    }
  }
  report(control, 1.0, what + " done");
}

int64_t TorchModel::logitPositions() const {
  return std::max<int64_t>(1, (int64_t(16) << 20) / std::max<int64_t>(1, model_.config.vocabSize));
}

at::Tensor TorchModel::targetNll(const at::Tensor& h, const at::Tensor& targets) const {
  return engine::targetNll(model_.lmHead, model_.config.finalSoftcap, h, targets, logitPositions());
}

at::Tensor TorchModel::maxLogitChange(const at::Tensor& a, const at::Tensor& b) const {
  const int64_t n = a.size(0), step = logitPositions();
  std::vector<at::Tensor> parts;
  for (int64_t t0 = 0; t0 < n; t0 += step) {
    const int64_t c = std::min(step, n - t0);
    parts.push_back((model_.logits(a.narrow(0, t0, c)) - model_.logits(b.narrow(0, t0, c))).abs().amax(-1));
  }
  return at::cat(parts, 0);
}

ForwardOutput TorchModel::forwardImpl(const ForwardInputs& in, const AttentionCapture& capture, bool wantLogits,
                                      const RunControl& control) {
  validateInputs(in, model_.config.vocabSize);
  for (int l : capture.layers)
    if (l < 0 || l >= model_.config.layers)
      throw std::runtime_error("attention capture: no layer " + std::to_string(l));
  for (int h : capture.heads)
    if (h < 0 || h >= model_.config.heads) throw std::runtime_error("attention capture: no head " + std::to_string(h));
  const int64_t B = in.inputIds.rows, T = in.inputIds.cols, V = model_.config.vocabSize;
  if (wantLogits && B * T * V > (int64_t(1) << 28)) throw std::runtime_error("logits requested for over 256M values");
  ForwardOutput out;
  out.perTokenNll.assign(size_t(B), std::vector<double>(size_t(T), 0.0));
  if (wantLogits) out.logits.assign(size_t(B * T * V), 0.0f);
  std::map<int, std::vector<at::Tensor>> kept, keptScores;
  double lossSum = 0;
  int64_t graded = 0;
  c10::InferenceMode guard;
  forEachChunk(B, T, control, "forward", out.notes, [&](int64_t r0, int64_t n) {
    AttentionKeep keep{capture.layers, capture.heads, capture.scores, {}, {}};
    // Progress after every layer (the logits take the last share); cancel stops between layers.
    const int64_t L = model_.config.layers;
    auto afterLayer = [&, r0, n](size_t l) {
      report(control, (double(r0) + double(n) * double(l + 1) / double(L + 1)) / double(B),
             "forward rows " + std::to_string(r0) + "-" + std::to_string(r0 + n - 1) + ": layer " +
                 std::to_string(l + 1) + "/" + std::to_string(L));
      checkCancel(control); // before the next layer starts
    };
    at::Tensor h = hiddenFor(in, {&in.attentionMask, &in.positionIds}, r0, n, capture.layers.empty() ? nullptr : &keep,
                             afterLayer);
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
    for (auto& [layer, t] : keep.keptScores) keptScores[layer].push_back(t);
    lossSum += sum;
    graded += count;
  });
  out.device = info_.device;
  out.lossSum = lossSum;
  out.gradedCount = graded;
  out.loss = graded > 0 ? lossSum / double(graded) : kNaN;
  for (auto& [layer, parts] : kept) {
    at::Tensor all = at::cat(parts, 0); // [B, Hk, T, T]
    const auto sc = keptScores.find(layer);
    at::Tensor allScores = sc == keptScores.end() ? at::Tensor() : at::cat(sc->second, 0); // [B, Hk, T, T]
    for (int64_t hi = 0; hi < all.size(1); ++hi) {
      CapturedAttention a;
      a.layer = layer;
      a.head = capture.heads.empty() ? int(hi) : capture.heads[size_t(hi)];
      a.batch = B;
      a.length = T;
      at::Tensor one = all.select(1, hi).contiguous();
      a.probs.assign(one.data_ptr<float>(), one.data_ptr<float>() + one.numel());
      if (allScores.defined()) {
        at::Tensor s = allScores.select(1, hi).contiguous();
        a.scores.assign(s.data_ptr<float>(), s.data_ptr<float>() + s.numel());
      }
      out.attention.push_back(std::move(a));
    }
  }
  return out;
}

} // namespace maskscope::engine
