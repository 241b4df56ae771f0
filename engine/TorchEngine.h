// Model loading inside the LibTorch module, for the ForwardEngine (TorchEngine.cpp) and training
// (Trainer.cpp): the device a name asks for, and a model from a folder, in-memory files or random weights.
#pragma once
#include "core/forward/ForwardEngine.h"
#include "engine/TransformerModel.h"

#include <string>

namespace maskscope::engine {

// "auto" (CUDA when LibTorch sees a GPU), "cpu" or "cuda"; throws for cuda without a GPU.
at::Device resolveDevice(const std::string& deviceName);
// A folder (config.json + model.safetensors or its shards, memory-mapped), in-memory files or random
// weights (source.randomSeed). Throws std::runtime_error naming the file and the field.
TransformerModel loadTransformerModel(const ModelSource& source, at::Device device, const RunControl& control);

} // namespace maskscope::engine
