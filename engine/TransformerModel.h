// The decoder in LibTorch: weights (memory-mapped safetensors or random) and the eager forward pass
// written to match transformers' modeling_{llama,mistral,qwen2,qwen3,gemma2,gemma3,phi3} numerically.
#pragma once
#include "core/forward/ModelConfig.h"
#include "engine/ChunkedAttention.h"
#include "engine/SafetensorsView.h"

#include <torch/torch.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace maskscope::engine {

// Undefined tensors are absent in that architecture.
struct LayerWeights {
  at::Tensor inputNorm, postNorm;        // [hidden]; Gemma: postNorm is post_attention_layernorm
  at::Tensor preFfnNorm, postFfnNorm;    // [hidden], Gemma only
  at::Tensor qNorm, kNorm;               // [D], Qwen3 / Gemma 3
  at::Tensor q, k, v, o;                 // [H*D, hidden], [kvH*D, hidden] x2, [hidden, H*D]
  at::Tensor qkv;                        // Phi-3: [(H + 2 kvH) * D, hidden] instead of q, k, v
  at::Tensor qBias, kBias, vBias, oBias; // undefined when the model has none
  at::Tensor gate, up, down;             // [I, hidden] x2, [hidden, I]
  at::Tensor gateUp;                     // Phi-3: [2 I, hidden] (gate rows first) instead of gate, up

  std::vector<at::Tensor*> all(); // every slot, defined or not
};

// Attention probabilities kept during a forward: layer -> [b, H_kept, T, T] (float32, CPU); with
// scores, also the pre-softmax scores before the mask (ScoresSink), layer -> [b, H_kept, T, T].
struct AttentionKeep {
  std::vector<int> layers;
  std::vector<int> heads; // empty = all
  bool scores = false;
  std::map<int, at::Tensor> kept;
  std::map<int, at::Tensor> keptScores;
};

class TransformerModel {
public:
  ModelConfig config;
  std::string weightDtype = "F32";
  at::Tensor embed; // [V, hidden]
  at::Tensor finalNorm;
  at::Tensor lmHead; // [V, hidden]; the same tensor as embed when tied
  std::vector<LayerWeights> layers;
  at::Device device = at::kCPU;
  at::ScalarType dtype = at::kFloat; // the compute dtype
  // Decoder layers keep their stored dtype on the CPU (BF16/F16 files) and are widened to `dtype`
  // one layer at a time during the forward; true when those stored tensors view a file mapping
  // (their pages are released after each widening).
  bool layersOnMapping = false;
  // The loss comparison's gradient pass on the CPU: each decoder layer keeps only its input for the
  // backward and runs again there (LayerCheckpoint in TransformerModel.cpp), so the activations kept
  // are one [b, T, hidden] per layer instead of every layer's intermediates. Off for training and on
  // CUDA, where the recomputation would cost time that memory does not need.
  bool recomputeLayers = false;

  // From safetensors files (one or several shards). CPU: F32 stays on the mapping; BF16/F16
  // embeddings, final norm and head are widened to float32 at load, decoder layers stay in the stored
  // dtype (on the mapping, or copied when copyWeights) and are widened per layer while the forward
  // runs: peak memory is the file, the widened embeddings, one widened layer and one layer's
  // activations. CUDA: copied to the GPU in the stored dtype.
  static TransformerModel fromSafetensors(const ModelConfig& config, const std::vector<SafetensorsView>& files,
                                          at::Device device, bool copyWeights);
  static TransformerModel random(const ModelConfig& config, uint64_t seed, at::Device device);

  // Every weight copied to device and dtype (the CUDA out-of-memory fallback). The copies are new
  // leaf tensors that keep each weight's requires_grad, also when it runs inside the gradient pass.
  void moveTo(at::Device device, at::ScalarType dtype);
  // requires_grad on or off for every weight (the gradient pass). A weight that is not a leaf (a copy
  // made with autograd recording) is detached first, so turning gradients off never throws.
  void setRequiresGrad(bool on);
  std::vector<at::Tensor> parameters() const;
  int64_t parameterCount() const;

  // Final hidden states [b, T, hidden] after the last RMSNorm. ids/mask/positions: [b, T] int64 on
  // `device`. mask follows ForwardEngine.h (0 = pad, nonzero = segment id).
  // afterLayer(l) runs after decoder layer l (progress; it may throw to cancel between layers).
  at::Tensor hidden(const at::Tensor& ids, const at::Tensor& mask, const at::Tensor& positions,
                    AttentionKeep* keep = nullptr, const std::function<void(size_t)>& afterLayer = {}) const;
  // Logits in float32 for hidden states [..., hidden] -> [..., V] (transformers upcasts to float),
  // soft-capped when the model has final_logit_softcapping (Gemma 2).
  at::Tensor logits(const at::Tensor& hidden) const;

private:
  friend struct LayerCheckpoint;
  struct Rope {
    at::Tensor cos, sin; // [b, 1, T, D] in the compute dtype
  };
  Rope rope(const RopeConfig& r, const at::Tensor& positions) const;
  at::Tensor norm(const at::Tensor& x, const at::Tensor& weight) const;
  // Layer li's weights in the compute dtype: the stored tensors, or widened copies of them.
  LayerWeights layerForCompute(size_t li) const;
  // w with the tensors that compute in `dtype` widened (with gradients on, the matrices stay narrow:
  // project() widens them inside its forward and backward); *widened tells whether any was.
  LayerWeights widenForCompute(LayerWeights w, bool* widened = nullptr) const;
  // The masks of one forward: the [b, T] segment mask (the chunked path builds each block's mask from
  // it), and for the fused path the [b, 1, T, T] additive masks shared by its layers (undefined:
  // causal only).
  struct Masks {
    at::Tensor segments;
    bool fused = false;
    at::Tensor fusedFull, fusedSliding;
  };
  at::Tensor attention(size_t layer, const LayerWeights& l, const at::Tensor& x, const Rope& rope, const Masks& masks,
                       bool sliding, AttentionKeep* keep) const;
  at::Tensor mlp(const LayerWeights& l, const at::Tensor& x) const;
  // Decoder layer li on the residual stream h [b, T, hidden] -> [b, T, hidden].
  at::Tensor layer(size_t li, const LayerWeights& l, const at::Tensor& h, const Rope& rope, const Masks& masks,
                   bool sliding, AttentionKeep* keep) const;
};

bool isOutOfMemory(const std::exception& e);

} // namespace maskscope::engine
