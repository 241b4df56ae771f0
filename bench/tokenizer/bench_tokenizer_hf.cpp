// Throughput of the tokenizer.json implementation on a deterministic ~10 MB mixed-language text
// (English, code, numbers, CJK, Arabic, Cyrillic, emoji, random words), single-threaded, next to
// @huggingface/tokenizers (node, reference.mjs) on the same text and the same line chunks, in the
// same run. Also reports load time. Needs tools/fetch-tokenizers.sh's cache.
//   bench_tokenizer_hf [--mb N] [--cache DIR] [--no-reference] [--models qwen3,llama3,...] [--repeat N]
#include "core/tokenizer/hf/HfTokenizerLoader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace maskscope;

namespace {

struct Rng { // splitmix64: the same text on every machine
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return size_t(next() % n); }
};

const std::vector<std::string> kEnglish = {
    "the",       "of",        "and",   "to",       "in",        "is",   "that",   "for",   "it",    "as",
    "was",       "with",      "be",    "by",       "on",        "not",  "he",     "this",  "are",   "or",
    "his",       "from",      "at",    "which",    "but",       "have", "an",     "had",   "they",  "you",
    "were",      "their",     "one",   "all",      "we",        "can",  "her",    "has",   "there", "been",
    "if",        "more",      "when",  "will",     "would",     "who",  "so",     "no",    "model", "training",
    "tokenizer", "attention", "mask",  "gradient", "dataset",   "loss", "I'm",    "don't", "it's",  "we'll",
    "they've",   "Hello",     "World", "However,", "Therefore", "(see", "above)."};
const std::vector<std::string> kCode = {
    "def f(x):\n    return x * 2\n",      "for (int i = 0; i < n; ++i) { sum += a[i]; }",
    "if err != nil {\n\treturn err\n}",   "const y = await fetch(url);",
    "{\"key\": [1, 2, 3], \"ok\": true}", "https://example.com/path?q=1&r=two",
    "SELECT * FROM users WHERE id = 42;", "x_1 = np.zeros((3, 4))"};
const std::vector<std::string> kOther = {"你好，世界。",
                                         "机器学习模型的训练数据",
                                         "日本語のテキスト",
                                         "カタカナとひらがな",
                                         "한국어 문장입니다",
                                         "مرحبا بالعالم",
                                         "كيف حالك اليوم",
                                         "Привет, мир!",
                                         "обучение модели",
                                         "Γειά σου Κόσμε",
                                         "नमस्ते दुनिया",
                                         "😀",
                                         "🎉🎉",
                                         "👨‍👩‍👧‍👦",
                                         "🇫🇷",
                                         "café",
                                         "naïve",
                                         "résumé",
                                         "straße",
                                         "ÆØÅ"};

std::string generateText(size_t bytes) {
  Rng rng{20240726};
  std::string out;
  out.reserve(bytes + 1024);
  while (out.size() < bytes) {
    size_t words = 20 + rng.below(120);
    for (size_t w = 0; w < words; ++w) {
      size_t kind = rng.below(100);
      if (w) out += rng.below(50) == 0 ? "  " : " ";
      if (kind < 60)
        out += kEnglish[rng.below(kEnglish.size())];
      else if (kind < 68) { // a random word: keeps the word cache honest
        size_t n = 3 + rng.below(10);
        for (size_t i = 0; i < n; ++i) out += char('a' + rng.below(26));
      } else if (kind < 74)
        out += std::to_string(rng.next() % 1000000);
      else if (kind < 80)
        out += kCode[rng.below(kCode.size())];
      else
        out += kOther[rng.below(kOther.size())];
    }
    size_t end = rng.below(10);
    out += end == 0 ? "\n\n" : end == 1 ? "\r\n" : ".\n";
  }
  return out;
}

std::vector<std::string_view> lines(const std::string& text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') {
      out.emplace_back(text.data() + start, i + 1 - start);
      start = i + 1;
    }
  if (start < text.size()) out.emplace_back(text.data() + start, text.size() - start);
  return out;
}

double cpuSeconds() { // this process's CPU time: steadier than wall time on a busy machine
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv) {
  double mb = 10;
  std::string cache;
  if (const char* env = std::getenv("MASKSCOPE_TOKENIZER_CACHE"))
    cache = env;
  else
    cache = std::string(std::getenv("HOME") ? std::getenv("HOME") : ".") + "/.cache/maskscope/tokenizers";
  bool reference = true;
  std::string writeText; // --write-text FILE: only write the generated text (for json-output.sh)
  int repeat = 1;
  std::vector<std::string> models = {"qwen3", "llama3", "gemma3", "llama2"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--mb" && i + 1 < argc)
      mb = std::atof(argv[++i]);
    else if (a == "--cache" && i + 1 < argc)
      cache = argv[++i];
    else if (a == "--write-text" && i + 1 < argc)
      writeText = argv[++i];
    else if (a == "--no-reference")
      reference = false;
    else if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--models" && i + 1 < argc) {
      models.clear();
      std::stringstream ss(argv[++i]);
      for (std::string m; std::getline(ss, m, ',');) models.push_back(m);
    } else {
      std::cerr << "usage: bench_tokenizer_hf [--mb N] [--cache DIR] [--no-reference] [--models a,b] [--repeat N] "
                   "[--write-text FILE]\n";
      return 2;
    }
  }
  const std::string text = generateText(size_t(mb * 1e6));
  if (!writeText.empty()) {
    std::ofstream(writeText, std::ios::binary) << text;
    return 0;
  }
  const auto chunks = lines(text);
  const double textMb = double(text.size()) / 1e6;
  std::printf("text: %.2f MB in %zu lines (deterministic mix: English, code, numbers, CJK, Arabic, emoji)\n", textMb,
              chunks.size());

  std::map<std::string, double> ours, oursCpu, load;
  for (const std::string& m : models) {
    const std::string path = cache + "/" + m + "/tokenizer.json";
    if (!std::filesystem::exists(path)) {
      std::fprintf(stderr, "missing %s: run tools/fetch-tokenizers.sh\n", path.c_str());
      return 2;
    }
    auto t0 = std::chrono::steady_clock::now();
    auto tok = loadHuggingFaceTokenizer(path);
    load[m] = seconds(t0);
    t0 = std::chrono::steady_clock::now();
    const double c0 = cpuSeconds();
    size_t n = 0;
    for (int r = 0; r < repeat; ++r)
      for (std::string_view c : chunks) n += tok->encode(c).size();
    double s = seconds(t0) / repeat, cpu = (cpuSeconds() - c0) / repeat;
    ours[m] = textMb / s;
    oursCpu[m] = textMb / cpu;
    std::printf("%-7s load %.3f s, encode %.2f s = %.1f MB/s (%.1f MB/s of CPU time), %zu tokens\n", m.c_str(), load[m],
                s, ours[m], oursCpu[m], n / size_t(repeat));
    std::fflush(stdout);
  }

  std::map<std::string, double> js, jsCpu;
  if (reference) {
    const std::string file = (std::filesystem::temp_directory_path() / "maskscope-bench-text.txt").string();
    std::ofstream(file, std::ios::binary) << text;
    std::string cmd = "node '" + std::string(MASKSCOPE_BENCH_DIR) + "/reference.mjs' '" + cache + "' '" + file + "'";
    for (const std::string& m : models) cmd += " " + m;
    std::printf("running the JavaScript reference (@huggingface/tokenizers)...\n");
    std::fflush(stdout);
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[4096];
      while (std::fgets(buf, sizeof buf, p)) {
        std::string line = buf;
        auto field = [&](const std::string& key) {
          auto k = line.find("\"" + key + "\":");
          return k == std::string::npos ? std::string() : line.substr(k + key.size() + 3);
        };
        std::string model = field("model");
        model = model.substr(1, model.find('"', 1) - 1);
        js[model] = std::atof(field("mb_per_s").c_str());
        jsCpu[model] = std::atof(field("cpu_mb_per_s").c_str());
      }
      if (pclose(p) != 0) std::fprintf(stderr, "the JavaScript reference failed (node and <cache>/node needed)\n");
    }
    std::filesystem::remove(file);
  }

  std::printf("\nMB/s by wall clock and by CPU time (CPU time is the fairer figure on a busy machine);\n"
              "ratio = ours / @huggingface/tokenizers in this run; vs qwen3 = our CPU-time MB/s / Qwen3's\n");
  std::printf("%-7s %7s %10s %10s %9s %9s %8s %8s %8s\n", "model", "load s", "ours wall", "ours cpu", "JS wall",
              "JS cpu", "ratio w", "ratio c", "vs qwen3");
  for (const std::string& m : models) {
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    std::printf("%-7s %7.3f %10.1f %10.1f %9.2f %9.2f %7.1fx %7.1fx %7.2fx\n", m.c_str(), load[m], ours[m], oursCpu[m],
                js[m], jsCpu[m], ratio(ours[m], js[m]), ratio(oursCpu[m], jsCpu[m]),
                oursCpu.count("qwen3") ? ratio(oursCpu[m], oursCpu["qwen3"]) : 0.0);
  }
  return 0;
}
