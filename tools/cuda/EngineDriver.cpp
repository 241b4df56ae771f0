// maskscope_engine_driver: loads libmaskscope_torch.so the way the app does (dlopen with RTLD_DEEPBIND,
// the ABI key checked by the factory) and runs the GPU-machine checks through ForwardEngine.h only.
//   maskscope_engine_driver [--module PATH] goldens --data DIR [--transformers FILE] [--device D]
//   maskscope_engine_driver [--module PATH] bench --shape BxT [--model DIR] [--device D] [--batch-out FILE]
// Output: JSON lines on stdout (docs/cuda.md, "Checking on a GPU machine without Qt").
#include "tools/cuda/Driver.h"

#include <dlfcn.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace maskscope::cudadriver {

std::string Options::get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

int64_t Options::number(const std::string& name, int64_t fallback) const {
  auto it = values.find(name);
  if (it == values.end()) return fallback;
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != it->second.size()) throw std::runtime_error("--" + name + ": not a number: " + it->second);
  return v;
}

void emit(const nlohmann::json& line) {
  std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
            << std::endl; // endl: flushed, so a timed-out run keeps what it printed
}

namespace {

// The module as the app loads it (core/forward/ForwardEngineLoader.cpp, without Qt): RTLD_NOW so a
// missing symbol fails here, RTLD_DEEPBIND so the module resolves its own protobuf first. Never
// unloaded: the engine's vtables live in it.
std::shared_ptr<ForwardEngine> loadModule(const std::string& path) {
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!lib) throw std::runtime_error("dlopen " + path + ": " + ::dlerror());
  auto factory = reinterpret_cast<MaskscopeForwardEngineFactory>(::dlsym(lib, kForwardEngineFactorySymbol));
  if (!factory) throw std::runtime_error(path + ": no symbol " + kForwardEngineFactorySymbol);
  ForwardEngine* raw = factory(forwardEngineAbiKey());
  if (!raw)
    throw std::runtime_error(path + ": built for another interface version or C++ string ABI (this driver needs key " +
                             std::to_string(forwardEngineAbiKey()) + ")");
  std::shared_ptr<ForwardEngine> engine(raw);
  if (engine->abiVersion() != kForwardEngineAbiVersion)
    throw std::runtime_error(path + ": interface version " + std::to_string(engine->abiVersion()) + ", driver " +
                             std::to_string(kForwardEngineAbiVersion));
  return engine;
}

int usage() {
  std::cerr << "usage: maskscope_engine_driver [--module PATH] goldens --data DIR [--transformers FILE] "
               "[--device cpu|cuda]\n"
               "       maskscope_engine_driver [--module PATH] bench --shape BxT [--model DIR] [--layers N] "
               "[--device cpu|cuda] [--seed N] [--batch-out FILE] [--skip-loss]\n";
  return 2;
}

} // namespace
} // namespace maskscope::cudadriver

int main(int argc, char** argv) {
  using namespace maskscope::cudadriver;
  std::string module = MASKSCOPE_MODULE_PATH, mode;
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      if (!mode.empty()) return usage();
      mode = a;
      continue;
    }
    const bool hasValue = i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0;
    std::string value = hasValue ? argv[++i] : "1";
    if (a == "--module")
      module = value;
    else
      options.values[a.substr(2)] = value;
  }
  if (mode != "goldens" && mode != "bench") return usage();
  try {
    std::shared_ptr<maskscope::ForwardEngine> engine = loadModule(module);
    emit({{"mode", mode},
          {"event", "loaded"},
          {"module", module},
          {"engine", engine->description()},
          {"cuda", engine->cudaAvailable()}});
    return mode == "goldens" ? runGoldens(*engine, options) : runBench(*engine, options);
  } catch (const std::exception& e) {
    emit({{"mode", mode}, {"event", "error"}, {"error", e.what()}});
    return 1;
  }
}
