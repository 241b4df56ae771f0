// Batch dump loading: a [64, 2048] right-padded batch written as .safetensors and as .json, each
// loaded with loadBatchDump (format checks, shape checks, packed-segment recovery), as ratios to
// reading the same file's bytes whole, measured in the same run. (Moved here from tests/batchio.)
#include "core/batchio/BatchLoader.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace maskscope;

namespace {

constexpr int64_t kRows = 64, kCols = 2048;

int64_t value(const char* name, int64_t r, int64_t c) {
  const bool pad = c >= kCols - 8 * (r % 16);
  if (std::string(name) == "attention_mask") return pad ? 0 : 1;
  if (std::string(name) == "labels") return pad ? -100 : (r * 31 + c) % 1000;
  return pad ? 0 : (r * 31 + c) % 1000; // input_ids
}

const char* const kNames[] = {"input_ids", "attention_mask", "labels"};

void writeSafetensors(const std::string& path) {
  std::ostringstream header;
  header << "{";
  const uint64_t bytes = uint64_t(kRows * kCols) * 8;
  for (int k = 0; k < 3; ++k)
    header << (k ? "," : "") << "\"" << kNames[k] << "\":{\"dtype\":\"I64\",\"shape\":[" << kRows << "," << kCols
           << "],\"data_offsets\":[" << k * bytes << "," << (k + 1) * bytes << "]}";
  header << "}";
  std::string h = header.str();
  while (h.size() % 8) h += ' ';
  std::ofstream out(path, std::ios::binary);
  const uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) out.put(char((n >> (8 * i)) & 0xff)); // u64 little-endian header length
  out << h;
  for (const char* name : kNames)
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < kCols; ++c) {
        const uint64_t v = uint64_t(value(name, r, c));
        for (int i = 0; i < 8; ++i) out.put(char((v >> (8 * i)) & 0xff));
      }
}

void writeJson(const std::string& path) {
  std::ofstream out(path);
  out << "{";
  for (int k = 0; k < 3; ++k) {
    out << (k ? "," : "") << "\"" << kNames[k] << "\":[";
    for (int64_t r = 0; r < kRows; ++r) {
      out << (r ? ",[" : "[");
      for (int64_t c = 0; c < kCols; ++c) out << (c ? "," : "") << value(kNames[k], r, c);
      out << "]";
    }
    out << "]";
  }
  out << ",\"pad_token_id\":0}";
}

double millis(int n, auto&& f) {
  f(); // warm up (page cache)
  auto b = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b).count() / n;
}

double readBytes(const std::string& path, size_t& sink) {
  return millis(20, [&] {
    std::ifstream in(path, std::ios::binary);
    std::string bytes(size_t(std::filesystem::file_size(path)), '\0');
    in.read(bytes.data(), std::streamsize(bytes.size()));
    sink += size_t(in.gcount());
  });
}

} // namespace

int main() {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string st = (dir / "maskscope_bench_batch.safetensors").string();
  const std::string js = (dir / "maskscope_bench_batch.json").string();
  writeSafetensors(st);
  writeJson(js);
  size_t sink = 0;
  const double stBytes = readBytes(st, sink), jsBytes = readBytes(js, sink);
  const double stLoad = millis(20, [&] { sink += size_t(loadBatchDump(st).batchSize()); });
  const double jsLoad = millis(5, [&] { sink += size_t(loadBatchDump(js).batchSize()); });
  if (loadBatchDump(st).labels.at(1, 0) != value("labels", 1, 0) || loadBatchDump(js).length() != kCols) {
    std::fprintf(stderr, "bench_batch_loader: the loaded batch differs from the written one\n");
    return 1;
  }
  std::filesystem::remove(st);
  std::filesystem::remove(js);
  std::printf("[%lld, %lld] batch: .safetensors %.2f ms (%.1fx reading its bytes, %.2f ms); "
              ".json %.2f ms (%.1fx reading its bytes, %.2f ms); json/safetensors %.1fx   [sink %zu]\n",
              (long long)kRows, (long long)kCols, stLoad, stLoad / stBytes, stBytes, jsLoad, jsLoad / jsBytes, jsBytes,
              jsLoad / stLoad, sink);
  return 0;
}
