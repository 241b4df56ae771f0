// Lint throughput: writes N deterministic no_robots-sized conversations (1-3 exchanges, an optional
// system prompt, replies of 40-400 words) to a temporary JSONL, then lints them with the Qwen3
// tokenizer.json and template (builtin:demo + ChatML when the tokenizer cache lacks Qwen3).
// Reports conversations/s, and as the reference measured in the same run, tokenize-only speed.
#include "core/collate/DatasetPipeline.h"
#include "core/lint/Lint.h"
#include "core/util/FileReading.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

using namespace maskscope;

namespace {

const char* kWords[] = {
    "the",      "model",     "learns",  "from",   "tokens", "that",    "are",       "graded", "while",    "padding",
    "stays",    "hidden",    "a",       "recipe", "for",    "bread",   "needs",     "flour",  "water",    "salt",
    "and",      "time",      "explain", "why",    "sky",    "is",      "blue",      "light",  "scatters", "in",
    "air",      "write",     "poem",    "about",  "autumn", "leaves",  "falling",   "softly", "on",       "quiet",
    "streets",  "summarize", "article", "below",  "please", "with",    "three",     "bullet", "points",   "Python",
    "function", "returns",   "sorted",  "list",   "of",     "numbers", "carefully", "tested"};

std::string sentence(std::mt19937& rng, int words) {
  std::string s;
  std::uniform_int_distribution<size_t> w(0, sizeof(kWords) / sizeof(kWords[0]) - 1);
  for (int i = 0; i < words; ++i) {
    std::string word = kWords[w(rng)];
    if (i == 0) word[0] = char(std::toupper(static_cast<unsigned char>(word[0])));
    s += (i ? " " : "") + word;
    if (i % 12 == 11) s += i + 1 < words ? ". " : "";
  }
  return s + ".";
}

void writeDataset(const std::string& path, long n) {
  std::mt19937 rng(1234);
  std::ofstream out(path);
  for (long i = 0; i < n; ++i) {
    nlohmann::json msgs = nlohmann::json::array();
    if (rng() % 4 == 0) msgs.push_back({{"role", "system"}, {"content", sentence(rng, 10 + int(rng() % 30))}});
    int exchanges = 1 + int(rng() % 10 == 0) + int(rng() % 20 == 0);
    for (int e = 0; e < exchanges; ++e) {
      msgs.push_back({{"role", "user"}, {"content", sentence(rng, 8 + int(rng() % 60))}});
      msgs.push_back({{"role", "assistant"}, {"content", sentence(rng, 40 + int(rng() % 360))}});
    }
    out << nlohmann::json{{"messages", msgs}, {"category", "Generation"}}.dump() << "\n";
  }
}

} // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  if (argc > 3 && std::string(argv[2]) == "--write") { // only write the dataset (large-dataset.sh)
    writeDataset(argv[3], n);
    return 0;
  }
  const char* cacheEnv = std::getenv("MASKSCOPE_TOKENIZER_CACHE");
  const char* home = std::getenv("HOME");
  std::string cache = cacheEnv ? cacheEnv : std::string(home ? home : ".") + "/.cache/maskscope/tokenizers";
  std::string qwen = cache + "/qwen3";
  PipelineSpec ps;
  if (fileExists(qwen + "/tokenizer.json")) {
    ps.tokenizerSpec = qwen;
    std::cout << "tokenizer: " << qwen << " (Qwen3 tokenizer.json and template)\n";
  } else {
    ps.tokenizerSpec = "builtin:demo";
    std::cout << "tokenizer: builtin:demo + ChatML (FALLBACK: no Qwen3 tokenizer at " << qwen << ")\n";
  }
  const std::string path = (std::filesystem::temp_directory_path() / "maskscope-lint-bench.jsonl").string();
  writeDataset(path, n);
  std::cout << "dataset: " << n << " conversations, " << std::filesystem::file_size(path) / (1 << 20) << " MiB\n";

  // Reference: tokenize-only (render + encode) on one thread over the first rows.
  DatasetPipeline pipeline(ps);
  const long refRows = std::min<long>(n, 5000);
  auto t0 = std::chrono::steady_clock::now();
  {
    DatasetReader reader(path);
    Conversation c;
    long i = 0, tokens = 0;
    while (i < refRows && reader.next(c)) {
      tokens += long(pipeline.encode(c).tokens.size());
      ++i;
    }
    std::cout << "mean tokens per conversation: " << tokens / std::max<long>(1, i) << "\n";
  }
  double refSecs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double refRate = double(refRows) / refSecs;

  DatasetLintOptions o;
  o.pipeline = ps;
  o.maxFindings = 100;
  auto t1 = std::chrono::steady_clock::now();
  LintReport r = lintDataset(path, o);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  double rate = double(r.summary.rowsRead) / secs;
  std::printf("reference (render+tokenize, 1 thread): %.0f conversations/s\n", refRate);
  std::printf("lint (%u hardware threads): %ld conversations in %.2f s = %.0f conversations/s (%.2fx the reference)\n",
              std::thread::hardware_concurrency(), r.summary.rowsRead, secs, rate, rate / refRate);
  std::printf("findings: %ld errors, %ld warnings, %ld infos\n", r.summary.errors, r.summary.warnings, r.summary.infos);
  if (!std::getenv("MASKSCOPE_BENCH_KEEP"))
    std::filesystem::remove(path);
  else
    std::cout << "kept " << path << "\n";
  return 0;
}
