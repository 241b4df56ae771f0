// The part of a Hugging Face config.json that the Llama/Qwen2 forward needs, validated and capped.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace maskscope::engine {

struct ModelConfig {
  std::string modelType; // "llama", "mistral", "qwen2"
  int64_t vocabSize = 0, hiddenSize = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, intermediateSize = 0;
  double rmsNormEps = 1e-6;
  double ropeTheta = 10000.0;
  bool tieWordEmbeddings = false;
  bool qkvBias = false; // Qwen2, or Llama's attention_bias
  bool oBias = false;   // Llama's attention_bias
  // RoPE scaling: "none", "linear", "llama3"; anything else is ignored with a note.
  std::string ropeScaling = "none";
  double ropeFactor = 1.0, lowFreqFactor = 1.0, highFreqFactor = 4.0;
  int64_t originalMaxPositions = 8192;
  std::vector<std::string> notes;
};

// Throws std::runtime_error naming `source` and the field on anything unusable.
ModelConfig parseModelConfig(const std::string& jsonText, const std::string& source);

} // namespace maskscope::engine
