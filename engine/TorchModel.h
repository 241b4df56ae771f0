// The ForwardModel of the LibTorch module: one loaded TransformerModel run over row chunks that keep
// memory bounded (CUDA out-of-memory halves the chunk, then moves the model to the CPU). The forward
// pass lives here; the loss comparison and its gradients (LossAnalysis.h) use the same chunk machinery.
#pragma once
#include "core/forward/ForwardEngine.h"
#include "engine/TransformerModel.h"

#include <functional>
#include <string>
#include <vector>

namespace maskscope::engine {

// Rows r0 .. r0+n of a [B, T] grid as an int64 [n, T] tensor on d.
at::Tensor gridRows(const IntGrid& g, int64_t r0, int64_t n, at::Device d);

class TorchModel final : public ForwardModel {
public:
  TorchModel(TransformerModel m, ModelInfo info) : model_(std::move(m)), info_(std::move(info)) {}

  const ModelInfo& info() const override { return info_; }
  ForwardOutput forward(const ForwardInputs& inputs, const AttentionCapture& capture, bool wantLogits,
                        const RunControl& control) override;
  LossReport analyse(const LossRequest& request, const RunControl& control) override;     // LossAnalysis.h
  MaskLessons lessons(const LessonsRequest& request, const RunControl& control) override; // Lessons.h

  // ---- The row-chunk machinery, shared by the forward pass and the loss analysis ----

  // The masks one forward runs with ([B, T] each; empty = all ones / 0..T-1).
  struct Grids {
    const IntGrid* mask;
    const IntGrid* positions;
  };

  const TransformerModel& model() const { return model_; }
  TransformerModel& model() { return model_; } // the gradient pass turns requires_grad on and off

  // Final hidden states [n, T, hidden] of rows r0 .. r0+n of in.inputIds under g's masks.
  at::Tensor hiddenFor(const ForwardInputs& in, Grids g, int64_t r0, int64_t n, AttentionKeep* keep,
                       const std::function<void(size_t)>& afterLayer = {});

  // Runs body(r0, n) over row chunks; on CUDA out-of-memory retries the chunk with half the rows, and
  // at one row moves the model to the CPU in float32 (the weights are replaced: re-read them). body
  // must only commit its results once it cannot throw any more. Notes say what was done.
  void forEachChunk(int64_t B, int64_t T, const RunControl& control, const std::string& what,
                    std::vector<std::string>& notes, const std::function<void(int64_t, int64_t)>& body);

  // -log p(targets[t][j] | position t) from one row's final hidden states h [n, hidden] and targets
  // [n, k] -> [n, k] float32, as logsumexp(logits) - logits[target]. By chunks of positions, so only
  // [chunk, V] logits exist at once (64 MB) instead of [T, V] (620 MB at T = 1024, V = 152k, twice
  // with log_softmax's output). Differentiable (LogitsHead.h): the gradient pass scores through it
  // and its graph keeps h, not the logits.
  at::Tensor targetNll(const at::Tensor& h, const at::Tensor& targets) const;

  // max over the vocabulary of |logits(a[t]) - logits(b[t])| for hidden states a, b [n, hidden] ->
  // [n] float32, by the same chunks of positions (both logits in full: soft-capping makes them
  // non-linear in the hidden state).
  at::Tensor maxLogitChange(const at::Tensor& a, const at::Tensor& b) const;

private:
  // Rows per chunk: the caller's cap, else what keeps the gradient pass's activations near 2 GiB
  // (16 GiB on CUDA, halved on out-of-memory).
  int64_t chunkRows(const RunControl& c, int64_t B, int64_t T) const;
  // Positions per logits chunk: [step, V] float32 stays near 64 MB.
  int64_t logitPositions() const;
  void fallBackToCpu(std::vector<std::string>& notes, const std::string& why);
  ForwardOutput forwardImpl(const ForwardInputs& in, const AttentionCapture& capture, bool wantLogits,
                            const RunControl& control);

  TransformerModel model_;
  ModelInfo info_;
};

} // namespace maskscope::engine
