// Dataset reading throughput: 20,000 messages rows through the streaming DatasetReader (row
// splitting, JSON parse, shape mapping to a Conversation) as a ratio to the plainest reference,
// std::getline plus nlohmann::json::parse of each line, on the same file in the same run.
// (Moved here from tests/dataset, which keeps the correctness half: every row read, progress 1.)
#include "core/data/DatasetReader.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace maskscope;

int main() {
  const std::string path = (std::filesystem::temp_directory_path() / "maskscope_bench_dataset.jsonl").string();
  {
    std::ofstream out(path);
    for (int i = 0; i < 20000; ++i)
      out << "{\"messages\": [{\"role\": \"user\", \"content\": \"question " << i
          << "\"}, {\"role\": \"assistant\", \"content\": \"answer\"}]}\n";
  }
  auto time = [](auto&& f) {
    auto b = std::chrono::steady_clock::now();
    long n = f();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b).count();
    return std::make_pair(ms, n);
  };
  auto reference = time([&] {
    std::ifstream in(path);
    long n = 0;
    for (std::string line; std::getline(in, line);) n += nlohmann::json::parse(line).contains("messages");
    return n;
  });
  auto ours = time([&] {
    DatasetReader reader(path);
    Conversation c;
    long n = 0;
    while (reader.next(c)) ++n;
    return n;
  });
  std::filesystem::remove(path);
  if (ours.second != 20000 || reference.second != 20000) {
    std::fprintf(stderr, "bench_dataset: read %ld rows (reference %ld), expected 20000\n", ours.second,
                 reference.second);
    return 1;
  }
  std::printf("20,000 JSONL rows: DatasetReader %.1f ms, getline + json::parse %.1f ms (ratio %.2fx)\n", ours.first,
              reference.first, ours.first / reference.first);
  return 0;
}
