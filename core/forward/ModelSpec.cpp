// --model SPEC resolution: builtin:tiny from the embedded resources, otherwise a folder on disk.
#include "core/forward/ModelSpec.h"
#include "core/forward/ForwardEngineLoader.h"
#include "core/forward/ModelConfig.h"
#include "core/resources/BuiltinResources.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

namespace maskscope {

ModelSource modelSourceFor(const std::string& spec) {
  ModelSource src;
  src.spec = spec;
  if (spec == kBuiltinTinyModel) {
    const std::string prefix = "models/tiny/";
    for (const std::string& name : builtinResourceNames(prefix)) {
      auto bytes = builtinResource(name);
      if (bytes) src.files.push_back({name.substr(prefix.size()), bytes->data(), bytes->size()});
    }
    if (src.files.empty()) throw Error("builtin:tiny is not embedded in this build", {spec});
    return src;
  }
  if (spec.rfind("builtin:", 0) == 0) throw Error("unknown built-in model '" + spec + "' (builtin:tiny)", {spec});
  if (!isDirectory(spec)) throw Error("not a model folder (config.json + *.safetensors)", {spec});
  if (!fileExists(joinPath(spec, "config.json"))) throw Error("the model folder has no config.json", {spec});
  src.folder = spec;
  return src;
}

namespace {
// An engine call whose exceptions (the module throws std::runtime_error) reach the caller as Error.
template <typename Call> auto asError(Call&& call, SourceLocation where) {
  try {
    return call();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(e.what(), where);
  }
}
} // namespace

ModelInfo describeModelConfig(const std::string& path) {
  if (path.empty()) throw Error("no config.json given");
  const std::string file = isDirectory(path) ? joinPath(path, "config.json") : path;
  // The cap the engine reads config.json with; errors name the file and the field.
  return modelInfoFromConfig(parseModelConfig(readFileCapped(file, kModelConfigCap), file));
}

std::shared_ptr<ForwardModel> loadForwardModel(const std::string& spec, const std::string& device,
                                               const RunControl& control) {
  if (device != "auto" && device != "cpu" && device != "cuda")
    throw Error("--device must be auto, cpu or cuda, not '" + device + "'", {"--device"});
  ModelSource src = modelSourceFor(spec);
  auto engine = requireForwardEngine();
  return asError([&] { return engine->loadModel(src, device, control); }, {spec});
}

} // namespace maskscope
