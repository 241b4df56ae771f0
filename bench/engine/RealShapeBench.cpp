// Benchmark: one loss forward at the real shapes of Qwen3-0.6B and Gemma-3-1B (random BF16 weights
// written by tools/model/realshape.py, memory-mapped by both sides) on a [2, 1024] batch: the C++
// engine against python3-torch running tools/model/reference.py on the same file, same threads, same
// run. Prints time and peak RSS of each side, their ratios, and the two losses.
// Usage: bench_engine_realshape [--shape qwen3-0.6b|gemma3-1b] [--layers N (0 = all)] [--batch B]
//                               [--length T] [--threads K] [--dir FOLDER]
#include "core/forward/ForwardEngineLoader.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>

using namespace maskscope;

namespace {

struct Options {
  std::string shape, dir = std::string(MASKSCOPE_BINARY_DIR) + "/realshape";
  int layers = 0, batch = 2, length = 1024, threads = 2;
};

std::string capture(const std::string& cmd) {
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {};
  char buf[4096];
  std::string out;
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  return out;
}

double field(const std::string& json, const std::string& key) {
  auto at = json.find("\"" + key + "\": ");
  return at == std::string::npos ? -1 : std::atof(json.c_str() + at + key.size() + 4);
}

// One decoder layer's activations for the rows the engine runs at once (its chunk rule: [n, H, T, T]
// scores near 512 MiB), float32: the residual stream, its norm, the attention output and the sum
// [n, T, hidden] x4; q, k, v before and after RoPE [n, T, (H + 2 kvH) D] x2; scores, float32 softmax
// and probabilities [n, H, T, T] x3; gate, up, activation and product [n, T, I] x4.
double layerActivationsMiB(const ModelInfo& m, int64_t B, int64_t T) {
  const int64_t perRow = std::max<int64_t>(1, m.heads * T * T * 4 * 3);
  const int64_t n = std::min<int64_t>(B, std::max<int64_t>(1, (int64_t(512) << 20) / perRow));
  const double values =
      double(n) * double(T) *
      double(4 * m.hiddenSize + 2 * (m.heads + 2 * m.kvHeads) * m.headDim + 3 * m.heads * T + 4 * m.intermediateSize);
  return values * 4.0 / 1048576.0;
}

double currentRssMiB() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return double(resident) * double(::sysconf(_SC_PAGESIZE)) / 1048576.0;
}

double peakRssMiB() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

int runShape(const Options& o) {
  const std::string tool = std::string(MASKSCOPE_SOURCE_DIR) + "/tools/model/realshape.py";
  const std::string model = o.dir + "/" + o.shape + "-L" + std::to_string(o.layers);
  struct stat st {};
  if (::stat((model + "/model.safetensors").c_str(), &st) != 0) {
    std::string cmd = "/usr/bin/python3 " + tool + " write " + o.shape + " " + model +
                      (o.layers ? " --layers " + std::to_string(o.layers) : "") + " >&2";
    if (std::system(cmd.c_str()) != 0 || ::stat((model + "/model.safetensors").c_str(), &st) != 0) return 2;
  }
  ::setenv("OMP_NUM_THREADS", std::to_string(o.threads).c_str(), 1); // before LibTorch loads
  std::string error;
  auto engine = loadForwardEngine(&error);
  if (!engine) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  ModelSource src;
  src.spec = src.folder = model;
  auto m = engine->loadModel(src, "cpu", {});
  auto t1 = std::chrono::steady_clock::now();
  const double rssAfterLoad = currentRssMiB();
  ForwardInputs in;
  in.inputIds = IntGrid(o.batch, o.length);
  std::mt19937 rng(5);
  for (auto& v : in.inputIds.values) v = int64_t(rng() % uint64_t(m->info().vocabSize));
  in.labels = in.inputIds;
  const std::string batchPath = model + "/batch.json";
  {
    std::string rows;
    for (int64_t r = 0; r < o.batch; ++r) {
      rows += r ? ", [" : "[";
      for (int64_t t = 0; t < o.length; ++t) rows += (t ? "," : "") + std::to_string(in.inputIds.at(r, t));
      rows += "]";
    }
    std::ofstream(batchPath) << "{\"input_ids\": [" << rows << "], \"labels\": [" << rows << "]}";
  }
  ForwardOutput out = m->forward(in, {}, false, {});
  auto t2 = std::chrono::steady_clock::now();
  const double cppLoad = std::chrono::duration<double>(t1 - t0).count();
  const double cppForward = std::chrono::duration<double>(t2 - t1).count();
  const double cppPeak = peakRssMiB();
  std::string py = capture("/usr/bin/python3 " + tool + " run " + model + " " + batchPath + " --threads " +
                           std::to_string(o.threads));
  const double pyForward = field(py, "seconds"), pyLoad = field(py, "load_seconds"), pyPeak = field(py, "peak_rss_mib"),
               pyLoss = field(py, "loss");
  const auto& info = m->info();
  std::printf("%s, %lld of its layers, %s weights, %dx%d, %d threads (%s)\n", o.shape.c_str(),
              static_cast<long long>(info.layers), info.weightDtype.c_str(), o.batch, o.length, o.threads,
              engine->description().c_str());
  std::printf("  load     C++ %8.2f s   python3-torch %8.2f s\n", cppLoad, pyLoad);
  std::printf("  forward  C++ %8.2f s   python3-torch %8.2f s   ratio C++/python %.2f\n", cppForward, pyForward,
              pyForward > 0 ? cppForward / pyForward : 0.0);
  std::printf("  peak RSS C++ %8.0f MiB python3-torch %8.0f MiB ratio C++/python %.2f\n", cppPeak, pyPeak,
              pyPeak > 0 ? cppPeak / pyPeak : 0.0);
  const double fileMiB = double(st.st_size) / 1048576.0, act = layerActivationsMiB(info, o.batch, o.length);
  std::printf("  memory   weights file %.0f MiB; C++ resident after load %.0f MiB; bound 2 x weights + one layer's "
              "activations (%.0f MiB) = %.0f MiB: C++ peak is %.2f of it (%s)\n",
              fileMiB, rssAfterLoad, act, 2 * fileMiB + act, cppPeak / (2 * fileMiB + act),
              cppPeak <= 2 * fileMiB + act ? "within" : "over");
  std::printf("  loss     C++ %.6f   python3-torch %.6f   |diff| %.2e\n", out.loss, pyLoss,
              std::abs(out.loss - pyLoss));
  return std::abs(out.loss - pyLoss) < 1e-3 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  Options o;
  std::map<std::string, std::string> args;
  for (int i = 1; i + 1 < argc; i += 2) args[argv[i]] = argv[i + 1];
  if (args.count("--shape")) o.shape = args["--shape"];
  if (args.count("--layers")) o.layers = std::atoi(args["--layers"].c_str());
  if (args.count("--batch")) o.batch = std::atoi(args["--batch"].c_str());
  if (args.count("--length")) o.length = std::atoi(args["--length"].c_str());
  if (args.count("--threads")) o.threads = std::atoi(args["--threads"].c_str());
  if (args.count("--dir")) o.dir = args["--dir"];
  if (!o.shape.empty()) return runShape(o);
  // Each shape in its own process, so each peak RSS is that shape's alone.
  int status = 0;
  for (const char* shape : {"qwen3-0.6b", "gemma3-1b"}) {
    std::string cmd = std::string(argv[0]) + " --shape " + shape;
    for (auto& [k, v] : args) cmd += " " + k + " " + v;
    status |= std::system(cmd.c_str()) != 0;
  }
  return status;
}
