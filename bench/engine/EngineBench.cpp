// Benchmark: one forward (hidden states, lm_head, per-token NLL) of builtin:tiny's shape and of a
// Qwen2-0.5B-shaped random model, C++ engine vs python3-torch eager, same threads, same shapes.
// Usage: bench_engine [--threads N] [--qwen-layers L] [--qwen-batch B] [--length T] [--repeat R]
#include "core/forward/ForwardEngineLoader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

using namespace maskscope;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double pythonSeconds(const std::string& configPath, int batch, int length, int threads, int repeat) {
  std::string cmd = "/usr/bin/python3 " + std::string(MASKSCOPE_SOURCE_DIR) +
                    "/tools/model/reference.py bench --config " + configPath + " --batch " + std::to_string(batch) +
                    " --length " + std::to_string(length) + " --threads " + std::to_string(threads) + " --repeat " +
                    std::to_string(repeat);
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[512];
  std::string out;
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  auto at = out.find("\"seconds\": ");
  return at == std::string::npos ? -1 : std::atof(out.c_str() + at + 11);
}

void run(ForwardEngine& engine, const std::string& label, const std::string& config, int batch, int length, int threads,
         int repeat) {
  ModelSource src;
  src.spec = label;
  src.configJson = config;
  src.randomSeed = 1;
  auto model = engine.loadModel(src, "cpu", {});
  ForwardInputs in;
  in.inputIds = IntGrid(batch, length);
  std::mt19937 rng(5);
  for (auto& v : in.inputIds.values) v = int64_t(rng() % uint64_t(model->info().vocabSize));
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    model->forward(in, {}, false, {});
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const std::string path = "/tmp/maskscope_bench_config_" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << config;
  double py = pythonSeconds(path, batch, length, threads, repeat);
  std::remove(path.c_str());
  std::printf("%-34s %dx%-5d  C++ %8.3f s   python3-torch %8.3f s   ratio C++/python %.2f\n", label.c_str(), batch,
              length, best, py, py > 0 ? best / py : 0.0);
}

} // namespace

int main(int argc, char** argv) {
  int threads = 2, qwenLayers = 2, qwenBatch = 2, length = 512, repeat = 2, tinyBatch = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (a == "--threads")
      threads = v;
    else if (a == "--qwen-layers")
      qwenLayers = v;
    else if (a == "--qwen-batch")
      qwenBatch = v;
    else if (a == "--length")
      length = v;
    else if (a == "--repeat")
      repeat = v;
    else if (a == "--tiny-batch")
      tinyBatch = v;
  }
  // Both sides get the same OpenMP thread count; set before LibTorch is loaded.
  ::setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
  std::string error;
  auto engine = loadForwardEngine(&error);
  if (!engine) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  std::printf("%s, %d threads, best of %d\n", engine->description().c_str(), threads, repeat);
  run(*engine, "builtin:tiny shape (4 layers, 128)",
      slurp(std::string(MASKSCOPE_SOURCE_DIR) + "/resources/models/tiny/config.json"), tinyBatch, length, threads,
      repeat);
  std::string qwen = R"({"model_type": "qwen2", "vocab_size": 151936, "hidden_size": 896, "num_hidden_layers": )" +
                     std::to_string(qwenLayers) +
                     R"(, "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864,
                     "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": true})";
  run(*engine, "Qwen2-0.5B shape, " + std::to_string(qwenLayers) + " of 24 layers", qwen, qwenBatch, length, threads,
      repeat);
  return 0;
}
