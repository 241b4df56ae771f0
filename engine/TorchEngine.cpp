// The ForwardEngine of the LibTorch module (the plain interface, core/forward/ForwardEngine.h) and
// model loading: a folder (one file or shards, memory-mapped), in-memory files (builtin:tiny) or
// random weights, on the device asked for. The forward pass is TorchModel.cpp, the loss comparison
// and its gradients LossAnalysis.cpp, .pt batches TorchBatchFile.cpp, training Trainer.cpp.
#include "engine/TorchEngine.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"
#include "engine/ChunkedAttention.h"
#include "engine/RunProgress.h"
#include "engine/TorchBatchFile.h"
#include "engine/TorchModel.h"
#include "engine/Trainer.h"

#include <nlohmann/json.hpp>
#include <torch/cuda.h>

#include <optional>

namespace maskscope::engine {

namespace {

// Shard file names from model.safetensors.index.json (names only: no folders, no "..").
std::vector<std::string> shardNames(const std::string& indexText, const std::string& source) {
  const nlohmann::json j = parseJsonOrThrow(indexText, {source});
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    throw std::runtime_error(source + " (weight_map): missing");
  std::vector<std::string> names;
  for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
    if (!it.value().is_string()) throw std::runtime_error(source + " (weight_map." + it.key() + "): not a file name");
    std::string f = it.value().get<std::string>();
    if (f.empty() || f.find('/') != std::string::npos || f.find("..") != std::string::npos)
      throw std::runtime_error(source + " (weight_map." + it.key() + "): '" + f + "' is not a plain file name");
    if (std::find(names.begin(), names.end(), f) == names.end()) names.push_back(f);
  }
  if (names.empty()) throw std::runtime_error(source + " (weight_map): empty");
  return names;
}

} // namespace

at::Device resolveDevice(const std::string& deviceName) {
  if (deviceName == "cuda" || deviceName == "auto") {
    if (torch::cuda::is_available()) return at::Device(at::kCUDA, 0);
    if (deviceName == "cuda")
      throw std::runtime_error(std::string("--device cuda: LibTorch sees no CUDA GPU (LibTorch ") + TORCH_VERSION +
                               "); see docs/cuda.md to build the engine against a CUDA LibTorch");
    return at::kCPU;
  }
  if (deviceName != "cpu") throw std::runtime_error("unknown device '" + deviceName + "' (auto, cpu, cuda)");
  return at::kCPU;
}

TransformerModel loadTransformerModel(const ModelSource& source, at::Device device, const RunControl& control) {
  report(control, 0.0, "loading " + source.spec);
  std::optional<TransformerModel> model;
  if (source.randomSeed) {
    model = TransformerModel::random(parseModelConfig(source.configJson, source.spec + " config"), *source.randomSeed,
                                     device);
  } else if (!source.files.empty()) {
    auto find = [&](const std::string& name) -> const MemoryFile* {
      for (const MemoryFile& f : source.files)
        if (f.name == name) return &f;
      return nullptr;
    };
    const MemoryFile* cfg = find("config.json");
    if (!cfg) throw std::runtime_error(source.spec + ": no config.json");
    ModelConfig config =
        parseModelConfig(std::string(static_cast<const char*>(cfg->data), cfg->size), source.spec + "/config.json");
    std::vector<SafetensorsView> files;
    std::vector<std::string> names{"model.safetensors"};
    if (!find("model.safetensors")) {
      const MemoryFile* idx = find("model.safetensors.index.json");
      if (!idx) throw std::runtime_error(source.spec + ": no model.safetensors");
      names = shardNames(std::string(static_cast<const char*>(idx->data), idx->size),
                         source.spec + "/model.safetensors.index.json");
    }
    for (const std::string& n : names) {
      const MemoryFile* f = find(n);
      if (!f) throw std::runtime_error(source.spec + ": no " + n);
      files.push_back(viewSafetensors(static_cast<const uint8_t*>(f->data), f->size, source.spec + "/" + n));
    }
    model = TransformerModel::fromSafetensors(config, files, device, /*copyWeights=*/true);
  } else {
    const std::string dir = source.folder.empty() ? source.spec : source.folder;
    ModelConfig config = parseModelConfig(readFileCapped(dir + "/config.json", kModelConfigCap), dir + "/config.json");
    std::vector<std::string> names{"model.safetensors"};
    if (!fileExists(dir + "/model.safetensors")) {
      const std::string idx = dir + "/model.safetensors.index.json";
      if (!fileExists(idx)) throw std::runtime_error(dir + ": no model.safetensors or model.safetensors.index.json");
      names = shardNames(readFileCapped(idx, 64 << 20), idx);
    }
    std::vector<SafetensorsView> files;
    for (size_t i = 0; i < names.size(); ++i) {
      checkCancel(control);
      report(control, double(i) / double(names.size()), "mapping " + names[i]);
      files.push_back(mapSafetensors(dir + "/" + names[i]));
    }
    model = TransformerModel::fromSafetensors(config, files, device, /*copyWeights=*/false);
  }
  return std::move(*model);
}

namespace {

// The config's ModelInfo (core/forward/ModelConfig.h) plus what the loaded tensors add.
ModelInfo describe(const TransformerModel& m) {
  ModelInfo i = modelInfoFromConfig(m.config);
  i.weightDtype = m.weightDtype;
  i.computeDtype = m.dtype == at::kFloat ? "float32" : m.dtype == at::kBFloat16 ? "bfloat16" : "float16";
  i.device = m.device.is_cuda() ? "cuda" : "cpu";
  i.parameterCount = m.parameterCount();
  i.notes.push_back(attentionPathNote(m.device, m.config.attnSoftcap));
  return i;
}

class TorchEngine final : public ForwardEngine {
public:
  int abiVersion() const override { return kForwardEngineAbiVersion; }

  std::string description() const override {
    return std::string("LibTorch ") + TORCH_VERSION + (torch::cuda::is_available() ? ", CUDA available" : ", CPU");
  }

  bool cudaAvailable() const override { return torch::cuda::is_available(); }

  std::shared_ptr<ForwardModel> loadModel(const ModelSource& source, const std::string& device,
                                          const RunControl& control) override {
    try {
      return loadImpl(source, device, control);
    } catch (const c10::Error& e) {
      throw std::runtime_error(source.spec + ": LibTorch: " + e.what_without_backtrace());
    }
  }

  std::map<std::string, TensorGrid> loadTorchBatch(const std::string& path) override { return readTorchBatch(path); }

  TrainReport trainAB(const TrainRequest& request, const TrainObserver& observer, const RunControl& control) override {
    try {
      return trainTwoRuns(request, observer, control);
    } catch (const c10::Error& e) {
      throw std::runtime_error(request.model.spec + ": LibTorch: " + e.what_without_backtrace());
    }
  }

private:
  std::shared_ptr<ForwardModel> loadImpl(const ModelSource& source, const std::string& deviceName,
                                         const RunControl& control) {
    std::optional<TransformerModel> model;
    model.emplace(loadTransformerModel(source, resolveDevice(deviceName), control));
    ModelInfo info = describe(*model);
    report(control, 1.0, "loaded " + source.spec);
    return std::make_shared<TorchModel>(std::move(*model), std::move(info));
  }
};

} // namespace
} // namespace maskscope::engine

extern "C" __attribute__((visibility("default"))) maskscope::ForwardEngine* maskscope_create_forward_engine(int key) {
  if (key != maskscope::forwardEngineAbiKey()) return nullptr;
  return new maskscope::engine::TorchEngine;
}
