// Run-time loading of libmaskscope_torch.so with QLibrary + DeepBindHint (see ForwardEngineLoader.h).
#include "core/forward/ForwardEngineLoader.h"
#include "core/util/Error.h"

#include <QLibrary>
#include <QString>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace maskscope {
namespace {

bool isFile(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool isDir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string executableDir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  std::string path(buf, size_t(n));
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

struct LoadedEngine {
  std::mutex mutex;
  bool tried = false;
  std::shared_ptr<ForwardEngine> engine;
  std::string error;
};

LoadedEngine& loaded() {
  static LoadedEngine* l = new LoadedEngine; // leaked on purpose: the module is never unloaded
  return *l;
}

} // namespace

std::vector<std::string> forwardEngineSearchPaths() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("MASKSCOPE_ENGINE_PATH"); env && *env) {
    std::string p = env;
    paths.push_back(isDir(p) ? p + "/" + kForwardEngineFileName : p);
  }
  std::string exe = executableDir();
  if (!exe.empty()) {
    paths.push_back(exe + "/" + kForwardEngineFileName);
    paths.push_back(exe + "/../lib/maskscope/" + kForwardEngineFileName);
  }
#ifdef MASKSCOPE_ENGINE_BUILD_DIR
  // Binaries that run from the build tree (tests, benchmarks) find the freshly built module; an
  // installed binary never falls back to a build folder that happens to exist on the machine.
  const std::string buildDir = std::filesystem::path(MASKSCOPE_ENGINE_BUILD_DIR).parent_path().string();
  if (!exe.empty() && (exe == buildDir || exe.starts_with(buildDir + "/")))
    paths.push_back(std::string(MASKSCOPE_ENGINE_BUILD_DIR) + "/" + kForwardEngineFileName);
#endif
  return paths;
}

std::shared_ptr<ForwardEngine> loadForwardEngine(std::string* errorMessage) {
  LoadedEngine& l = loaded();
  std::lock_guard lock(l.mutex);
  if (l.tried) {
    if (!l.engine && errorMessage) *errorMessage = l.error;
    return l.engine;
  }
  l.tried = true;
  std::vector<std::string> paths = forwardEngineSearchPaths();
  std::string looked;
  std::string loadErrors;
  for (const std::string& path : paths) {
    looked += (looked.empty() ? "" : ", ") + path;
    if (!isFile(path)) continue;
    // Heap-allocated and never deleted: unloading would leave the engine's vtables dangling.
    auto* lib = new QLibrary(QString::fromStdString(path));
    lib->setLoadHints(QLibrary::DeepBindHint);
    if (!lib->load()) {
      loadErrors += "\n  " + path + ": " + lib->errorString().toStdString();
      delete lib;
      continue;
    }
    auto factory = reinterpret_cast<MaskscopeForwardEngineFactory>(lib->resolve(kForwardEngineFactorySymbol));
    if (!factory) {
      loadErrors += "\n  " + path + ": no symbol " + kForwardEngineFactorySymbol;
      continue;
    }
    ForwardEngine* raw = nullptr;
    try {
      raw = factory(forwardEngineAbiKey());
    } catch (const std::exception& e) {
      loadErrors += "\n  " + path + ": " + e.what();
      continue;
    }
    if (!raw) {
      loadErrors += "\n  " + path +
                    ": built for another interface version or C++ string ABI (rebuild it; this program needs key " +
                    std::to_string(forwardEngineAbiKey()) + ")";
      continue;
    }
    l.engine.reset(raw);
    return l.engine;
  }
  if (loadErrors.empty())
    l.error = std::string("the LibTorch engine (") + kForwardEngineFileName + ") was not found: looked in " + looked +
              "; build it (cmake -DMASKSCOPE_BUILD_ENGINE=ON) or set MASKSCOPE_ENGINE_PATH";
  else
    l.error = std::string("the LibTorch engine (") + kForwardEngineFileName + ") could not be loaded:" + loadErrors;
  if (errorMessage) *errorMessage = l.error;
  return nullptr;
}

std::shared_ptr<ForwardEngine> requireForwardEngine() {
  std::string message;
  auto engine = loadForwardEngine(&message);
  if (!engine) throw Error(message);
  return engine;
}

} // namespace maskscope
