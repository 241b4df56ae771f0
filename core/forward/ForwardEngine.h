// The plain-C++ interface to the LibTorch forward-pass module (engine/, libmaskscope_torch.so).
// No torch type crosses it: the module is loaded at run time (ForwardEngineLoader.h) because
// libtorch and libsentencepiece cannot share one binary (two protobuf versions).
//
// Conventions (all grids row-major [B, T], int64, as transformers takes them):
//   attention_mask  0 = padding (never attended as a key); any nonzero value is a segment id.
//                   A query attends key k <= q when mask[k] != 0 and (mask[q] == mask[k] or
//                   mask[q] == 0), so a 0/1 mask is the usual key-padding mask (one segment) and
//                   1, 2, 3, ... keeps attention inside each packed example. Masked scores get
//                   finfo(dtype).min, not -inf, as transformers does: a fully masked row (a left
//                   pad) becomes uniform instead of NaN.
//   position_ids    empty grid = 0..T-1 in every row (transformers' default).
//   labels          HF convention: the model shifts. Loss = mean over t of
//                   NLL(labels[t+1] | logits[t]) where labels[t+1] != -100.
//   per_token_nll   [b][t] = NLL of input_ids[b][t+1] from the logits at t; the last position is 0.
// Errors: every method throws std::runtime_error (never a torch type) with a readable message.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/RowFacts.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

// Bumped whenever a struct or virtual below changes; the loader refuses a module built otherwise.
inline constexpr int kForwardEngineAbiVersion = 12;
// The one symbol the module exports: extern "C" ForwardEngine* maskscope_create_forward_engine(int key),
// returning nullptr unless key == forwardEngineAbiKey() as the module computes it. The key folds in
// sizeof(std::string) so a module built with the old libstdc++ string ABI (_GLIBCXX_USE_CXX11_ABI=0,
// as older pip LibTorch wheels are) is refused instead of crashing.
inline constexpr const char* kForwardEngineFactorySymbol = "maskscope_create_forward_engine";
inline constexpr int forwardEngineAbiKey() { return kForwardEngineAbiVersion * 1000 + int(sizeof(std::string)); }

// A file held in memory by the caller (builtin:tiny is embedded in the main binary, which the module
// cannot see). The caller keeps the bytes alive while loadModel runs; the module copies what it keeps.
struct MemoryFile {
  std::string name; // "config.json", "model.safetensors", "model.safetensors.index.json", shard names
  const void* data = nullptr;
  size_t size = 0;
};

struct ModelSource {
  std::string spec;              // for messages: the folder path or "builtin:tiny"
  std::string folder;            // a Hugging Face model folder (config.json + *.safetensors)
  std::vector<MemoryFile> files; // used instead of folder when non-empty
  // Benchmarks/tests: build the architecture in configJson with random weights (no files read).
  std::string configJson;
  std::optional<uint64_t> randomSeed;
};

// How one decoder layer attends: sliding layers see only the `window` most recent keys (the query
// itself included), combined with the causal, padding and packing rules above.
struct LayerAttentionInfo {
  bool sliding = false;
  int64_t window = 0;     // 0 when the layer attends to the whole causal prefix
  double ropeTheta = 0.0; // RoPE base of this layer (Gemma 3: sliding layers use rope_local_base_freq)
};

struct ModelInfo {
  std::string architecture; // config.json's model_type: llama, mistral, qwen2, qwen3, gemma2, gemma3_text, phi3
  std::string weightDtype;  // as stored: "F32", "BF16", "F16" (or "random")
  std::string computeDtype; // "float32" on CPU; the stored dtype on CUDA
  std::string device;       // "cpu" or "cuda"
  int64_t vocabSize = 0, hiddenSize = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, intermediateSize = 0,
          parameterCount = 0;
  bool tiedEmbeddings = false;
  bool attentionBias = false;       // q/k/v biases (Qwen2)
  double ropeTheta = 10000.0;       // of the full-attention layers
  std::string ropeScaling = "none"; // "none", "linear", "llama3" (other types are refused at load)
  double attnLogitSoftcap = 0.0, finalLogitSoftcap = 0.0; // 0 = none (Gemma 2 soft-capping)
  std::vector<LayerAttentionInfo> layerAttention;         // [layers]
  std::vector<std::string> notes;                         // what was approximated or ignored
};

// Progress and cancellation for long runs. progress may be called from the calling thread only.
struct RunControl {
  std::function<void(double fraction, const std::string& text)> progress;
  const std::atomic<bool>* cancel = nullptr; // set to true: the run throws "cancelled" soon after
  int64_t maxRowsPerChunk = 0;               // 0 = all rows at once; halved on CUDA out-of-memory
  // Tests: the first row chunk of this pass of the run ("forward", "loss" or "gradients") fails as a
  // CUDA out-of-memory at one row would, so the fallback (the model moved to the CPU in float32, in
  // the middle of the run) runs on any device. Empty: never.
  std::string simulateOutOfMemoryIn;
};

struct ForwardInputs {
  IntGrid inputIds;      // [B, T]
  IntGrid attentionMask; // [B, T]; empty = all ones
  IntGrid positionIds;   // [B, T]; empty = 0..T-1
  IntGrid labels;        // [B, T]; empty = no loss
};

// Which attention probabilities to keep (post-softmax, what the values are mixed with).
struct AttentionCapture {
  std::vector<int> layers; // empty = none
  std::vector<int> heads;  // empty = every head of those layers
  bool scores = false;     // also the pre-softmax scores (CapturedAttention::scores)
};

struct CapturedAttention {
  int layer = 0;
  int head = 0;
  int64_t batch = 0, length = 0;
  std::vector<float> probs; // [B, T, T] row-major: probs[(b*T + q)*T + k]
  // [B, T, T] as probs, only when AttentionCapture::scores: the real pre-softmax scores of every key,
  // (q k^T) * scale in the compute dtype, after the soft-cap where the model caps (Gemma 2), BEFORE the
  // mask is added (a future or pad key keeps its score). softmax(score + mask) over k, the mask being
  // finfo(dtype).min where a key is not attended, gives probs. Empty otherwise.
  std::vector<float> scores;
};

struct ForwardOutput {
  std::string device;
  double loss = 0.0; // HF causal-LM loss (NaN when nothing is graded or no labels)
  double lossSum = 0.0;
  int64_t gradedCount = 0;
  std::vector<std::vector<double>> perTokenNll; // [B][T], see the conventions above
  std::vector<CapturedAttention> attention;
  std::vector<float> logits; // [B, T, V] row-major, only when asked for (small models)
  std::vector<std::string> notes;
  // Peak of the CUDA caching allocator's allocated bytes during this call (reset at its start, so the
  // weights count), in MiB: torch.cuda.max_memory_allocated's figure. 0 on the CPU or without CUDA.
  double peakDeviceMemoryMiB = 0;
};

// PositionRole (RolePrompt, RoleReply, RolePad, RoleUnknown) and kRoleCount: core/mask/RowFacts.h.

// One more loss over the same input_ids with other masks.
struct LossVariant {
  std::string name;      // "fixed", "labels_fixed_only", "attention_fixed_only", "block_diagonal"
  IntGrid attentionMask; // same conventions as ForwardInputs
  IntGrid positionIds;
  IntGrid labels;
};

struct LossRequest {
  ForwardInputs asGiven; // labels required
  std::vector<LossVariant> variants;
  IntGrid roles;                 // [B, T] PositionRole of each position
  bool gradients = true;         // gradient norms from pad vs real graded positions
  std::string compareLogitsWith; // variant whose logits are compared at real positions
};

struct RoleTally {
  int64_t graded = 0;   // graded positions whose target token has this role
  double lossSum = 0.0; // their NLL sum under the as-given masks
};

struct LossReport {
  std::string device;
  double asGiven = 0.0;
  int64_t gradedCount = 0;
  std::vector<std::pair<std::string, double>> variantLoss;    // in request order
  std::vector<std::pair<std::string, int64_t>> variantGraded; // graded count of each variant
  std::vector<std::vector<double>> perTokenNll;               // as given
  RoleTally roles[kRoleCount];
  bool gradientsComputed = false;
  // ||d(as-given mean loss)/d(params)|| restricted to the terms whose target is a pad / is real.
  double gradNormPad = 0.0, gradNormReal = 0.0;
  bool logitsCompared = false;
  double maxLogitChangeReal = 0.0; // max |logit_asGiven - logit_variant| over real positions
  std::vector<std::string> notes;  // e.g. CUDA out of memory: fell back to smaller chunks / CPU
  double peakDeviceMemoryMiB = 0;  // as ForwardOutput::peakDeviceMemoryMiB, over the whole comparison
};

// A whole-tensor view of one entry of a torch.save(dict): shape plus values widened to int64.
struct TensorGrid {
  std::vector<int64_t> shape;
  std::vector<int64_t> values;
  std::string dtype; // "int64", "int32", "bool", ...
};

// ---- Training (engine/Trainer.cpp): two runs from the same weights, advanced step by step in turn ----

// One micro-batch: the grids a collator made (labels required) and the role of every position
// (positionRoles, core/forward/LossPlan.h), by which the loss is split into pad / prompt / reply.
struct TrainBatch {
  ForwardInputs inputs; // [B, T] each; labels required
  IntGrid roles;        // [B, T] PositionRole
};

struct TrainRunPlan {
  std::string name;                           // shown in progress and reports (the collator spec)
  std::vector<std::vector<TrainBatch>> steps; // steps[s] = the micro-batches of optimizer step s
  // The gradient-accumulation bug: loss = mean over micro-batches of each micro-batch's mean.
  // false: the token-weighted loss, sum of every graded NLL / graded count of the whole step.
  bool perMicroBatchMean = false;
  // The held-out conversations collated by this run's own collator (its labels, masks, positions and
  // packing), scored once after training: beside TrainRequest::heldOut (each alone, correct masks) it
  // shows how much the run's layout changes the loss of the same tokens. Empty: not scored.
  std::vector<TrainBatch> heldOutAsTrained;
};

struct TrainSettings {
  double learningRate = 3e-3; // peak
  double weightDecay = 0.01;  // AdamW, decoupled; applied to matrices only (not norms, biases)
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  int64_t warmupSteps = 0;         // linear from lr/warmup to lr
  std::string schedule = "cosine"; // "cosine" (to 0 at the last step) or "constant"
  double clipNorm = 1.0;           // global gradient norm cap; 0 = no clipping
  uint64_t seed = 0;               // torch's generator (random init); the data order is the caller's
  int64_t evalEvery = 10;          // held-out loss every N steps (and at 0 and the end)
  int threads = 1;                 // intra-op CPU threads: fixed so the sums are bit-reproducible
};

struct GenerationPlan {
  std::vector<std::vector<int64_t>> prompts; // token ids, ending with the generation prompt
  std::vector<int64_t> stopIds;              // end-of-turn tokens: generation stops after one
  int64_t maxNewTokens = 64;
  // Per prompt (empty, or as many as prompts): the held-out reply that follows it in the data, its tokens
  // through the closing token. Each is also scored teacher-forced (GenerationRecord::teacherForced), so
  // the greedy generation can be compared with what the model predicts when it reads the true reply.
  std::vector<std::vector<int64_t>> references;
};

struct TrainRequest {
  ModelSource model;
  bool randomInit = false;    // the model's architecture with random weights (seeded) instead of its own
  std::string device = "cpu"; // "auto", "cpu", "cuda"
  TrainSettings settings;
  TrainRunPlan runs[2];
  std::vector<TrainBatch> heldOut; // scored with no gradient, the same for both runs (correct masks)
  GenerationPlan generation;
};

struct TrainStepRecord {
  int64_t step = 0;                            // 1-based optimizer step
  double trainLoss = 0.0;                      // as this run's normalisation computes it
  double fullBatchLoss = 0.0;                  // the step's summed NLL / all its graded positions: what one
                                               // full batch would report (equals trainLoss when token-weighted)
  double learningRate = 0.0;                   // used for this step
  double gradNorm = 0.0;                       // global norm before clipping
  int64_t graded = 0;                          // graded positions in the step
  double lossShare[kRoleCount] = {0, 0, 0, 0}; // share of the summed NLL by the target's role
};

struct HeldOutRecord {
  int64_t step = 0; // 0 = before training
  double loss = 0.0;
};

struct GenerationRecord {
  std::vector<int64_t> tokens; // generated ids (the stop token included when it came)
  bool stopped = false;        // ended with a stop id within maxNewTokens
  // Teacher forcing on GenerationPlan::references[i]: at each reference position k, the argmax of the
  // logits given the prompt and the true reply tokens before k (as training reads them). Empty when
  // the prompt has no reference.
  std::vector<int64_t> teacherForced;
  std::vector<double> teacherForcedLogProb; // ln p(references[i][k]) at the same positions
};

struct TrainRunResult {
  std::string name;
  std::vector<TrainStepRecord> steps;
  std::vector<HeldOutRecord> heldOut;
  double heldOutAsTrainedLoss = 0.0;         // after training, on TrainRunPlan::heldOutAsTrained; NaN if empty
  std::vector<GenerationRecord> generations; // one per GenerationPlan prompt
};

struct TrainReport {
  std::string device;
  TrainRunResult runs[2];
  std::vector<std::string> notes;
};

// Called on the calling thread after each step of either run (run 0 or 1) and each held-out score.
struct TrainObserver {
  std::function<void(int run, const TrainStepRecord&)> step;
  std::function<void(int run, const HeldOutRecord&)> heldOut;
};

// The masking lessons measured on a batch (core/forward/MaskLessons.h).
struct LessonsRequest;
struct MaskLessons;

class ForwardModel {
public:
  virtual ~ForwardModel() = default;
  virtual const ModelInfo& info() const = 0;
  // One forward pass: per-token NLL, the loss when labels are given, optional attention / logits.
  virtual ForwardOutput forward(const ForwardInputs& inputs, const AttentionCapture& capture, bool wantLogits,
                                const RunControl& control) = 0;
  // The mask comparison behind `maskscope loss`.
  virtual LossReport analyse(const LossRequest& request, const RunControl& control) = 0;
  // The article's lessons on the batch (`maskscope loss --lessons`): per-position gradients, one
  // AdamW step with all labels -100 and as given, a prompt token changed, the labels flipped. Runs on
  // a float32 copy of the weights; the model is left as it was.
  virtual MaskLessons lessons(const LessonsRequest& request, const RunControl& control) = 0;
};

class ForwardEngine {
public:
  virtual ~ForwardEngine() = default;
  virtual int abiVersion() const = 0;
  virtual std::string description() const = 0; // "LibTorch 1.13.0, CPU" and the like
  virtual bool cudaAvailable() const = 0;
  // device: "auto" (CUDA when available), "cpu" or "cuda" (error when absent).
  virtual std::shared_ptr<ForwardModel> loadModel(const ModelSource& source, const std::string& device,
                                                  const RunControl& control) = 0;
  // Reads a torch.save(dict) of integer/bool tensors (input_ids, attention_mask, labels, ...).
  virtual std::map<std::string, TensorGrid> loadTorchBatch(const std::string& path) = 0;
  // Trains two copies of one model, run 0 and run 1 advancing one step each in turn, then greedy
  // generation from both. control.cancel stops between steps (throws "cancelled").
  virtual TrainReport trainAB(const TrainRequest& request, const TrainObserver& observer,
                              const RunControl& control) = 0;
};

} // namespace maskscope

extern "C" {
typedef maskscope::ForwardEngine* (*MaskscopeForwardEngineFactory)(int abiKey);
}
