// The Llama / Qwen2 decoder in LibTorch: weights (memory-mapped safetensors or random) and the
// eager forward pass written to match transformers' modeling_llama / modeling_qwen2 numerically.
#pragma once
#include "engine/ModelConfig.h"
#include "engine/Safetensors.h"

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

namespace maskscope::engine {

struct LayerWeights {
  at::Tensor inputNorm, postNorm;        // [hidden]
  at::Tensor q, k, v, o;                 // [H*D, hidden], [kvH*D, hidden] x2, [hidden, H*D]
  at::Tensor qBias, kBias, vBias, oBias; // undefined when the model has none
  at::Tensor gate, up, down;             // [I, hidden] x2, [hidden, I]
};

// Attention probabilities kept during a forward: layer -> [b, H_kept, T, T] (float32, CPU).
struct AttentionKeep {
  std::vector<int> layers;
  std::vector<int> heads; // empty = all
  std::map<int, at::Tensor> kept;
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
  at::ScalarType dtype = at::kFloat;

  // From safetensors files (one or several shards). CPU: F32 stays on the mapping, BF16/F16 are
  // widened to float32. CUDA: copied to the GPU in the stored dtype.
  static TransformerModel fromSafetensors(const ModelConfig& config, const std::vector<SafetensorsFile>& files,
                                          at::Device device, bool copyWeights);
  static TransformerModel random(const ModelConfig& config, uint64_t seed, at::Device device);

  void moveTo(at::Device device, at::ScalarType dtype);
  std::vector<at::Tensor> parameters() const;
  int64_t parameterCount() const;

  // Final hidden states [b, T, hidden] after the last RMSNorm. ids/mask/positions: [b, T] int64 on
  // `device`. mask follows ForwardEngine.h (0 = pad, nonzero = segment id).
  at::Tensor hidden(const at::Tensor& ids, const at::Tensor& mask, const at::Tensor& positions,
                    AttentionKeep* keep = nullptr) const;
  // Logits in float32 for hidden states [..., hidden] -> [..., V] (transformers upcasts to float).
  at::Tensor logits(const at::Tensor& hidden) const;
};

// The additive [b, 1, T, T] mask: 0 where allowed, finfo(dtype).min elsewhere (ForwardEngine.h rule).
at::Tensor additiveMask(const at::Tensor& mask, at::ScalarType dtype);

bool isOutOfMemory(const std::exception& e);

} // namespace maskscope::engine
