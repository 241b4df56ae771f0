// Resolves a --model SPEC (a Hugging Face model folder, or builtin:tiny embedded in the binary) and
// loads it through the LibTorch engine.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <memory>
#include <string>

namespace maskscope {

inline constexpr const char* kBuiltinTinyModel = "builtin:tiny";

// The ModelSource for spec. builtin:tiny points at the embedded bytes (they live as long as the
// process). Throws Error for a folder without config.json.
ModelSource modelSourceFor(const std::string& spec);

// A model's config.json (or a folder holding one) read for its layer layout without weights, by the
// parser the engine loads models with (core/forward/ModelConfig.h; no LibTorch needed): what the
// layer picker and `snapshot --model-config` show. Throws Error naming the file (and the field).
ModelInfo describeModelConfig(const std::string& path);

// Loads the engine (first use only) and the model. Throws Error with the engine's message.
std::shared_ptr<ForwardModel> loadForwardModel(const std::string& spec, const std::string& device,
                                               const RunControl& control = {});

} // namespace maskscope
