// The part of a Hugging Face config.json that the decoder forward needs (Llama, Mistral, Qwen2,
// Qwen3, Gemma 2, Gemma 3 text, Phi-3), validated and capped. Every setting is honoured or refused.
// Plain JSON, no torch: the LibTorch module (engine/) compiles it in, and reading a layer layout
// (modelInfoFromConfig, ModelSpec.h's describeModelConfig) needs no engine at all.
#pragma once
#include "core/forward/ForwardEngine.h" // ModelInfo

#include <cstdint>
#include <string>
#include <vector>

namespace maskscope {

// The largest config.json read (real ones are a few KiB).
inline constexpr int64_t kModelConfigCap = int64_t(16) << 20;

// The model_type values the engine runs, in the order messages list them.
const std::vector<std::string>& supportedModelTypes();

// How one RoPE table is built: base frequency and transformers' rope_scaling ("none", "linear", "llama3").
struct RopeConfig {
  double theta = 10000.0;
  std::string scaling = "none";
  double factor = 1.0, lowFreqFactor = 1.0, highFreqFactor = 4.0;
  int64_t originalMaxPositions = 8192;
};

enum class Activation { Silu, GeluTanh, Gelu };

struct ModelConfig {
  std::string modelType; // one of supportedModelTypes()
  int64_t vocabSize = 0, hiddenSize = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, intermediateSize = 0;
  double rmsNormEps = 1e-6;
  bool tieWordEmbeddings = false;
  bool qkvBias = false; // Qwen2, or Llama's attention_bias
  bool oBias = false;   // Llama's attention_bias
  // Architecture switches (transformers' modelling files):
  bool gemmaNorm = false;        // Gemma RMSNorm: float32 maths, scale (1 + w); embeddings x sqrt(hidden)
  bool sandwichNorms = false;    // Gemma: post-attention, pre- and post-feed-forward norms
  bool qkNorm = false;           // Qwen3, Gemma 3: RMSNorm over head_dim on q and k before RoPE
  bool fusedProjections = false; // Phi-3: qkv_proj and gate_up_proj
  Activation activation = Activation::Silu;
  double attentionScale = 0; // head_dim^-0.5, Gemma: query_pre_attn_scalar^-0.5
  double attnSoftcap = 0;    // 0 = none; Gemma 2: tanh(s / cap) * cap before the mask
  double finalSoftcap = 0;   // 0 = none; on the logits
  RopeConfig rope;           // full-attention layers (and all layers unless localRope is set)
  bool hasLocalRope = false; // Gemma 3: sliding layers use rope_local_base_freq, no scaling
  RopeConfig localRope;
  int64_t slidingWindow = 0;       // keys a sliding query sees, itself included
  std::vector<bool> slidingLayers; // [layers]
  std::vector<std::string> notes;
};

// Throws Error (a std::runtime_error) naming `source` and the field on anything unusable.
ModelConfig parseModelConfig(const std::string& jsonText, const std::string& source);

// What a config says about the model, weights or not: architecture, sizes, soft-caps and the layer
// layout (layerAttention). weightDtype, computeDtype and device stay empty and parameterCount 0; a
// loaded model (engine/) adds its tensors' on top of this.
ModelInfo modelInfoFromConfig(const ModelConfig& config);

} // namespace maskscope
