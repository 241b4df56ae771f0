// Benchmark: training steps (forward, backward, clip, AdamW) of builtin:tiny's shape, the LibTorch
// module (ForwardEngine::trainAB, one run's time) against the same steps in python3-torch
// (tools/model/adamw_reference.py bench), one thread each, measured in the same run.
// Usage: bench_engine_train [--batch B] [--length T] [--steps N]
#include "core/forward/ForwardEngineLoader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

using namespace maskscope;

namespace {

const char* kTinyConfig = R"({"model_type": "llama", "vocab_size": 4000, "hidden_size": 128, "num_hidden_layers": 4,
 "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 352, "rms_norm_eps": 1e-5,
 "rope_theta": 10000.0, "tie_word_embeddings": true})";

double pythonSeconds(const std::string& config, int batch, int length, int steps) {
  const std::string path = "/tmp/maskscope_train_bench_" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << config;
  const std::string cmd = "/usr/bin/python3 " + std::string(MASKSCOPE_SOURCE_DIR) +
                          "/tools/model/adamw_reference.py bench " + path + " " + std::to_string(batch) + " " +
                          std::to_string(length) + " " + std::to_string(steps);
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p)) out += buf;
  if (p) ::pclose(p);
  std::remove(path.c_str());
  auto at = out.find("\"seconds\": ");
  return at == std::string::npos ? -1 : std::atof(out.c_str() + at + 11);
}

} // namespace

int main(int argc, char** argv) {
  int batch = 8, length = 128, steps = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (a == "--batch")
      batch = v;
    else if (a == "--length")
      length = v;
    else if (a == "--steps")
      steps = v;
  }
  std::string error;
  auto engine = loadForwardEngine(&error);
  if (!engine) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  TrainRequest req;
  req.model.spec = "tiny-shape";
  req.model.configJson = kTinyConfig;
  req.model.randomSeed = 1;
  req.settings.evalEvery = 1000000;
  TrainBatch b;
  b.inputs.inputIds = IntGrid(batch, length);
  std::mt19937 rng(5);
  for (auto& v : b.inputs.inputIds.values) v = int64_t(rng() % 4000);
  b.inputs.labels = b.inputs.inputIds;
  b.roles = IntGrid(batch, length, RolePrompt);
  for (int s = 0; s < steps; ++s) req.runs[0].steps.push_back({b}); // run 1 has no steps: one run timed
  const auto t0 = std::chrono::steady_clock::now();
  engine->trainAB(req, {}, {});
  const double cpp = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double py = pythonSeconds(kTinyConfig, batch, length, steps);
  std::printf("train %d steps of %dx%d (builtin:tiny shape, 1 thread): C++ %.3f s  python3-torch %.3f s  "
              "ratio C++/python %.2f\n",
              steps, batch, length, cpp, py, py > 0 ? cpp / py : 0.0);
  return 0;
}
