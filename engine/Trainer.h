// Training inside the LibTorch module: AdamW with decoupled weight decay, warm-up + cosine or constant
// learning rate, global-norm clipping and gradient accumulation (token-weighted, or the per-micro-batch
// mean bug), for two copies of one model trained side by side (ForwardEngine::trainAB).
#pragma once
#include "core/forward/ForwardEngine.h"
#include "engine/TransformerModel.h"

#include <string>
#include <vector>

namespace maskscope::engine {

// A trainable copy: every weight cloned to float32 on device (tied embeddings stay tied), so the
// source's memory-mapped or shared tensors are never written.
TransformerModel ownedCopy(const TransformerModel& source, at::Device device);

// AdamW state of one model: params in TransformerModel::parameters() order.
struct AdamState {
  std::vector<at::Tensor> params, expAvg, expAvgSq;
  std::vector<bool> decay; // weight decay on matrices (dim >= 2) only, as HF Trainer's default groups
  int64_t step = 0;
};
AdamState adamFor(const TransformerModel& model);

// The logits at positions 0 .. T-2 of every row ([B, T-1, V] float32, on the model's device), which
// score the labels at 1 .. T-1; with the graph when grad mode is on. The inputs' labels are not read.
at::Tensor shiftedLogits(const TransformerModel& model, const ForwardInputs& inputs);

// Summed NLL of the graded positions of one micro-batch (HF shift: logits at t predict labels[t+1]),
// and the detached per-role sums by the role of the target position.
struct MicroLoss {
  at::Tensor sum; // scalar, with the graph when grad mode is on
  int64_t graded = 0;
  double roleSum[kRoleCount] = {0, 0, 0, 0};
};
MicroLoss microLoss(const TransformerModel& model, const TrainBatch& batch);

// torch.nn.utils.clip_grad_norm_: the norm of the per-parameter norms; grads scaled by
// min(1, max_norm / (norm + 1e-6)). Returns the norm before clipping.
double clipGradients(const std::vector<at::Tensor>& params, double maxNorm);
// torch.optim.AdamW, PyTorch 1.13 _single_tensor_adamw (no amsgrad, not maximize): one update of every
// parameter that has a gradient.
void adamwUpdate(AdamState& adam, const TrainSettings& settings, double learningRate);

// The learning rate of 0-based step s of total: linear warm-up to the peak, then cosine to 0 or constant.
double scheduledRate(const TrainSettings& settings, int64_t s, int64_t total);

// One optimizer step on micro-batches (gradients accumulated, then clipped, then AdamW), exactly as
// torch.nn.utils.clip_grad_norm_ and torch.optim.AdamW (1.13, single-tensor path) do.
TrainStepRecord trainStep(TransformerModel& model, AdamState& adam, const std::vector<TrainBatch>& micro,
                          bool perMicroBatchMean, const TrainSettings& settings, double learningRate);

// Mean NLL over every graded position of the batches (no gradient); NaN when nothing is graded.
double heldOutLoss(const TransformerModel& model, const std::vector<TrainBatch>& batches);

// Greedy decoding of one prompt (no cache: the tiny models this is for re-run the prefix).
GenerationRecord generateGreedy(const TransformerModel& model, const std::vector<int64_t>& prompt,
                                const std::vector<int64_t>& stopIds, int64_t maxNewTokens);

// Teacher forcing on one reference reply: one pass over prompt + reference[0 .. n-2] (batch 1, no pads),
// and at each reference position k, from the logits that predict it given the prompt and the true reply
// before k: their argmax (g.teacherForced) and the log-probability of reference[k]
// (g.teacherForcedLogProb). Both left empty when the reference or the prompt is.
void teacherForce(const TransformerModel& model, const std::vector<int64_t>& prompt,
                  const std::vector<int64_t>& reference, GenerationRecord& g);

TrainReport trainTwoRuns(const TrainRequest& request, const TrainObserver& observer, const RunControl& control);

} // namespace maskscope::engine
