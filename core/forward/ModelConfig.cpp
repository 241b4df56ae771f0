// config.json parsing for the supported decoder architectures (see ModelConfig.h). Defaults are
// those of the matching transformers *Config class where a checkpoint may omit the key.
#include "core/forward/ModelConfig.h"
#include "core/forward/LayerAttention.h"
#include "core/util/Error.h"
#include "core/util/JsonParse.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

namespace maskscope {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& what) {
  throw Error(what, {source, -1, -1, -1, field}); // "source (field): what"
}

bool present(const json& j, const char* key) { return j.contains(key) && !j[key].is_null(); }

int64_t intField(const json& j, const std::string& source, const char* key, int64_t lo, int64_t hi,
                 std::optional<int64_t> fallback = std::nullopt) {
  if (!present(j, key)) {
    if (fallback) return *fallback;
    fail(source, key, "missing");
  }
  if (!j[key].is_number_integer()) fail(source, key, "not an integer");
  int64_t v = j[key].get<int64_t>();
  if (v < lo || v > hi)
    fail(source, key, std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

double numField(const json& j, const std::string& source, const char* key, double fallback) {
  if (!present(j, key)) return fallback;
  if (!j[key].is_number()) fail(source, key, "not a number");
  return j[key].get<double>();
}

double positiveField(const json& j, const std::string& source, const char* key, double fallback) {
  double v = numField(j, source, key, fallback);
  if (!(v > 0) || !std::isfinite(v)) fail(source, key, "must be a positive number");
  return v;
}

bool boolField(const json& j, const char* key, bool fallback) {
  return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

std::string stringField(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string supportedList() {
  std::string s;
  for (const std::string& t : supportedModelTypes()) s += (s.empty() ? "" : ", ") + t;
  return s;
}

// rope_scaling: linear and llama3 are computed; default/absent is plain RoPE; anything else is refused.
RopeConfig parseRope(const json& j, const std::string& source, double defaultTheta) {
  RopeConfig r;
  r.theta = positiveField(j, source, "rope_theta", defaultTheta);
  if (!present(j, "rope_scaling")) return r;
  if (!j["rope_scaling"].is_object()) fail(source, "rope_scaling", "not an object");
  const json& s = j["rope_scaling"];
  std::string type = stringField(s, "rope_type");
  if (type.empty()) type = stringField(s, "type");
  if (type.empty() || type == "default") return r;
  if (type == "longrope" || type == "su")
    fail(source, "rope_scaling.type",
         "'" + type + "' (LongRoPE, the 128k-context Phi-3 variants) is not supported; use a checkpoint without it");
  if (type != "linear" && type != "llama3")
    fail(source, "rope_scaling.type", "'" + type + "' is not supported (linear, llama3)");
  r.scaling = type;
  r.factor = positiveField(s, source + " rope_scaling", "factor", 1.0);
  if (type == "llama3") {
    r.lowFreqFactor = numField(s, source, "low_freq_factor", 1.0);
    r.highFreqFactor = numField(s, source, "high_freq_factor", 4.0);
    r.originalMaxPositions = intField(s, source, "original_max_position_embeddings", 1, 1 << 30, 8192);
    if (!(r.highFreqFactor > r.lowFreqFactor) || !(r.lowFreqFactor > 0))
      fail(source, "rope_scaling", "needs 0 < low_freq_factor < high_freq_factor");
  }
  return r;
}

Activation parseActivation(const json& j, const std::string& source, bool gemma) {
  const char* key = gemma && present(j, "hidden_activation") ? "hidden_activation" : "hidden_act";
  std::string act = stringField(j, key);
  if (act.empty()) act = gemma ? "gelu_pytorch_tanh" : "silu";
  if (act == "silu" || act == "swish") return Activation::Silu;
  if (act == "gelu_pytorch_tanh" || act == "gelu_new") return Activation::GeluTanh;
  if (act == "gelu") return Activation::Gelu;
  fail(source, key, "'" + act + "' is not supported (silu, gelu_pytorch_tanh, gelu)");
}

// Which layers slide: layer_types when the config lists them, else each architecture's default.
void parseSliding(const json& j, const std::string& source, ModelConfig& c) {
  const std::string& t = c.modelType;
  const bool gemma = t == "gemma2" || t == "gemma3_text";
  c.slidingLayers.assign(size_t(c.layers), false);
  if (gemma)
    c.slidingWindow = intField(j, source, "sliding_window", 1, kMaxSlidingWindow, 4096);
  else if (present(j, "sliding_window"))
    c.slidingWindow = intField(j, source, "sliding_window", 1, kMaxSlidingWindow);
  if (present(j, "layer_types")) {
    if (!j["layer_types"].is_array() || int64_t(j["layer_types"].size()) != c.layers)
      fail(source, "layer_types", "must list one type per layer (" + std::to_string(c.layers) + ")");
    for (int64_t i = 0; i < c.layers; ++i) {
      const json& v = j["layer_types"][size_t(i)];
      std::string s = v.is_string() ? v.get<std::string>() : "";
      if (s != "sliding_attention" && s != "full_attention")
        fail(source, "layer_types[" + std::to_string(i) + "]", "'" + s + "' (sliding_attention, full_attention)");
      c.slidingLayers[size_t(i)] = s == "sliding_attention";
    }
  } else if (t == "gemma2") { // Gemma2Config: layers 0, 2, 4, ... slide
    for (int64_t i = 0; i < c.layers; ++i) c.slidingLayers[size_t(i)] = (i + 1) % 2 != 0;
  } else if (t == "gemma3_text") {
    const int64_t pattern = intField(j, source, "sliding_window_pattern", 1, 1 << 20, 6);
    for (int64_t i = 0; i < c.layers; ++i) c.slidingLayers[size_t(i)] = (i + 1) % pattern != 0;
  } else if (t == "mistral" || t == "phi3") {
    c.slidingLayers.assign(size_t(c.layers), c.slidingWindow > 0);
  } else if ((t == "qwen2" || t == "qwen3") && boolField(j, "use_sliding_window", false) && c.slidingWindow > 0) {
    const int64_t from = intField(j, source, "max_window_layers", 0, 1 << 20, 28);
    for (int64_t i = from; i < c.layers; ++i) c.slidingLayers[size_t(i)] = true;
  }
  const bool anySliding = std::find(c.slidingLayers.begin(), c.slidingLayers.end(), true) != c.slidingLayers.end();
  if (anySliding && c.slidingWindow <= 0) fail(source, "sliding_window", "missing, but layer_types has sliding layers");
}

void parseArchitecture(const json& j, const std::string& source, ModelConfig& c) {
  const std::string& t = c.modelType;
  const bool gemma = t == "gemma2" || t == "gemma3_text";
  c.gemmaNorm = c.sandwichNorms = gemma;
  c.qkNorm = t == "qwen3" || t == "gemma3_text";
  c.fusedProjections = t == "phi3";
  c.activation = parseActivation(j, source, gemma);
  c.tieWordEmbeddings = boolField(j, "tie_word_embeddings", gemma);
  if (t == "qwen2") {
    c.qkvBias = true;
  } else if (!gemma && t != "phi3") {
    c.qkvBias = c.oBias = boolField(j, "attention_bias", false);
  } else if (boolField(j, "attention_bias", false)) {
    fail(source, "attention_bias", "true is not supported for " + t);
  }
  // LlamaConfig's mlp_bias adds biases to gate, up and down that this engine does not read.
  if (boolField(j, "mlp_bias", false)) fail(source, "mlp_bias", "true is not supported");
  c.attentionScale = 1.0 / std::sqrt(double(c.headDim));
  if (gemma) {
    c.attentionScale = 1.0 / std::sqrt(positiveField(j, source, "query_pre_attn_scalar", 256.0));
    // Gemma2Config defaults to 50 / 30; Gemma 3 to none; an explicit null means none.
    auto softcap = [&](const char* key, double gemma2Default) {
      if (present(j, key)) return positiveField(j, source, key, 1.0);
      return !j.contains(key) && t == "gemma2" ? gemma2Default : 0.0;
    };
    c.attnSoftcap = softcap("attn_logit_softcapping", 50.0);
    c.finalSoftcap = softcap("final_logit_softcapping", 30.0);
  }
  if (t == "phi3" && numField(j, source, "partial_rotary_factor", 1.0) != 1.0)
    fail(source, "partial_rotary_factor", "only 1.0 (RoPE on the whole head) is supported");
  c.rope = parseRope(j, source, t == "gemma3_text" ? 1000000.0 : 10000.0);
  if (t == "gemma3_text") {
    c.hasLocalRope = true;
    c.localRope.theta = positiveField(j, source, "rope_local_base_freq", 10000.0);
  }
  parseSliding(j, source, c);
}

} // namespace

const std::vector<std::string>& supportedModelTypes() {
  static const std::vector<std::string> types{"llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3_text", "phi3"};
  return types;
}

ModelConfig parseModelConfig(const std::string& text, const std::string& source) {
  const nlohmann::json j = parseJsonOrThrow(text, {source}); // depth-capped, like every input
  if (!j.is_object()) throw Error("not a JSON object", {source});
  ModelConfig c;
  c.modelType = stringField(j, "model_type");
  const auto& types = supportedModelTypes();
  if (std::find(types.begin(), types.end(), c.modelType) == types.end())
    fail(source, "model_type", "'" + c.modelType + "' is not supported (" + supportedList() + ")");
  const bool gemma = c.modelType == "gemma2" || c.modelType == "gemma3_text";
  c.vocabSize = intField(j, source, "vocab_size", 1, 4'000'000);
  c.hiddenSize = intField(j, source, "hidden_size", 1, 65536);
  c.layers = intField(j, source, "num_hidden_layers", 1, 1024);
  c.heads = intField(j, source, "num_attention_heads", 1, 1024);
  c.kvHeads = intField(j, source, "num_key_value_heads", 1, 1024, c.heads);
  c.intermediateSize = intField(j, source, "intermediate_size", 1, 1 << 20);
  if (c.heads % c.kvHeads != 0) fail(source, "num_key_value_heads", "does not divide num_attention_heads");
  if (!gemma && c.hiddenSize % c.heads != 0 && !present(j, "head_dim"))
    fail(source, "num_attention_heads", "does not divide hidden_size");
  c.headDim = intField(j, source, "head_dim", 2, 4096, gemma ? 256 : c.hiddenSize / c.heads);
  if (c.headDim % 2 != 0) fail(source, "head_dim", "must be even for rotary embeddings");
  c.rmsNormEps = positiveField(j, source, "rms_norm_eps", 1e-6);
  parseArchitecture(j, source, c);
  return c;
}

ModelInfo modelInfoFromConfig(const ModelConfig& c) {
  ModelInfo i;
  i.architecture = c.modelType;
  i.vocabSize = c.vocabSize;
  i.hiddenSize = c.hiddenSize;
  i.layers = c.layers;
  i.heads = c.heads;
  i.kvHeads = c.kvHeads;
  i.headDim = c.headDim;
  i.intermediateSize = c.intermediateSize;
  i.tiedEmbeddings = c.tieWordEmbeddings;
  i.attentionBias = c.qkvBias;
  i.ropeTheta = c.rope.theta;
  i.ropeScaling = c.rope.scaling;
  i.attnLogitSoftcap = c.attnSoftcap;
  i.finalLogitSoftcap = c.finalSoftcap;
  for (int64_t l = 0; l < c.layers; ++l) {
    const bool sliding = c.slidingLayers[size_t(l)];
    i.layerAttention.push_back(
        {sliding, sliding ? c.slidingWindow : 0, sliding && c.hasLocalRope ? c.localRope.theta : c.rope.theta});
  }
  for (const std::string& n : c.notes) i.notes.push_back(n);
  return i;
}

} // namespace maskscope
