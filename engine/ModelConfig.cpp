// config.json parsing for Llama-family and Qwen2 models (see ModelConfig.h).
#include "engine/ModelConfig.h"
#include "core/util/JsonParse.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>

namespace maskscope::engine {
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& what) {
  throw std::runtime_error(source + " (" + field + "): " + what);
}

int64_t intField(const nlohmann::json& j, const std::string& source, const char* key, int64_t lo, int64_t hi,
                 std::optional<int64_t> fallback = std::nullopt) {
  if (!j.contains(key) || j[key].is_null()) {
    if (fallback) return *fallback;
    fail(source, key, "missing");
  }
  if (!j[key].is_number_integer()) fail(source, key, "not an integer");
  int64_t v = j[key].get<int64_t>();
  if (v < lo || v > hi)
    fail(source, key, std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

double numField(const nlohmann::json& j, const std::string& source, const char* key, double fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_number()) fail(source, key, "not a number");
  return j[key].get<double>();
}

bool boolField(const nlohmann::json& j, const char* key, bool fallback) {
  return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

} // namespace

ModelConfig parseModelConfig(const std::string& text, const std::string& source) {
  const nlohmann::json j = parseJsonOrThrow(text, {source}); // depth-capped, like every input
  if (!j.is_object()) throw std::runtime_error(source + ": not a JSON object");
  ModelConfig c;
  c.modelType = j.contains("model_type") && j["model_type"].is_string() ? j["model_type"].get<std::string>() : "";
  if (c.modelType != "llama" && c.modelType != "mistral" && c.modelType != "qwen2")
    fail(source, "model_type", "'" + c.modelType + "' is not supported (llama, mistral, qwen2)");
  c.vocabSize = intField(j, source, "vocab_size", 1, 4'000'000);
  c.hiddenSize = intField(j, source, "hidden_size", 1, 65536);
  c.layers = intField(j, source, "num_hidden_layers", 1, 1024);
  c.heads = intField(j, source, "num_attention_heads", 1, 1024);
  c.kvHeads = intField(j, source, "num_key_value_heads", 1, 1024, c.heads);
  c.intermediateSize = intField(j, source, "intermediate_size", 1, 1 << 20);
  if (c.heads % c.kvHeads != 0) fail(source, "num_key_value_heads", "does not divide num_attention_heads");
  if (c.hiddenSize % c.heads != 0 && !j.contains("head_dim"))
    fail(source, "num_attention_heads", "does not divide hidden_size");
  c.headDim = intField(j, source, "head_dim", 2, 4096, c.hiddenSize / c.heads);
  if (c.headDim % 2 != 0) fail(source, "head_dim", "must be even for rotary embeddings");
  c.rmsNormEps = numField(j, source, "rms_norm_eps", 1e-6);
  c.ropeTheta = numField(j, source, "rope_theta", 10000.0);
  if (!(c.ropeTheta > 0)) fail(source, "rope_theta", "must be positive");
  c.tieWordEmbeddings = boolField(j, "tie_word_embeddings", false);
  std::string act =
      j.contains("hidden_act") && j["hidden_act"].is_string() ? j["hidden_act"].get<std::string>() : "silu";
  if (act != "silu" && act != "swish") fail(source, "hidden_act", "'" + act + "' is not supported (silu)");
  if (c.modelType == "qwen2") {
    c.qkvBias = true;
  } else {
    c.qkvBias = c.oBias = boolField(j, "attention_bias", false);
  }
  if (j.contains("sliding_window") && j["sliding_window"].is_number_integer() &&
      (c.modelType == "mistral" || boolField(j, "use_sliding_window", false)))
    c.notes.push_back("sliding_window " + std::to_string(j["sliding_window"].get<int64_t>()) +
                      " is ignored: attention is full causal (exact for sequences up to that length)");
  if (j.contains("rope_scaling") && j["rope_scaling"].is_object()) {
    const auto& r = j["rope_scaling"];
    std::string type = r.contains("rope_type") && r["rope_type"].is_string() ? r["rope_type"].get<std::string>()
                       : r.contains("type") && r["type"].is_string()         ? r["type"].get<std::string>()
                                                                             : "";
    c.ropeFactor = numField(r, source, "factor", 1.0);
    if (type == "linear" || type == "llama3") {
      if (!(c.ropeFactor > 0)) fail(source, "rope_scaling.factor", "must be positive");
      c.ropeScaling = type;
      if (type == "llama3") {
        c.lowFreqFactor = numField(r, source, "low_freq_factor", 1.0);
        c.highFreqFactor = numField(r, source, "high_freq_factor", 4.0);
        c.originalMaxPositions = intField(r, source, "original_max_position_embeddings", 1, 1 << 30, 8192);
        if (!(c.highFreqFactor > c.lowFreqFactor) || !(c.lowFreqFactor > 0))
          fail(source, "rope_scaling", "needs 0 < low_freq_factor < high_freq_factor");
      }
    } else if (type != "default" && !type.empty()) {
      c.ropeScaling = "ignored: " + type;
      c.notes.push_back("rope_scaling '" + type + "' is not implemented and is ignored (plain RoPE)");
    }
  }
  return c;
}

} // namespace maskscope::engine
