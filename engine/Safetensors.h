// Safetensors files: memory mapping and header validation as the format's reference implementation
// (huggingface/safetensors) does it. Plain C++, no torch: the module wraps the bytes in tensors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace maskscope::engine {

inline constexpr uint64_t kMaxSafetensorsHeader = 100'000'000; // the reference's MAX_HEADER_SIZE

struct TensorEntry {
  std::string name;
  std::string dtype; // "F32", "BF16", "F16", "I64", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0; // byte range inside the data section
};

// A validated view of one safetensors buffer. `bytes` stays owned by whoever holds `keepAlive`.
struct SafetensorsFile {
  std::string fileName;
  const uint8_t* data = nullptr; // start of the data section
  uint64_t dataSize = 0;
  std::map<std::string, TensorEntry> tensors;
  std::map<std::string, std::string> metadata;
  std::shared_ptr<void> keepAlive; // the mapping (or nothing for caller-owned memory)
};

// Bytes of one element of a safetensors dtype, 0 when unknown.
size_t dtypeSize(const std::string& dtype);

// Parses and validates: 8-byte little-endian header length (capped), a JSON object header,
// dtype x shape = byte size, offsets contiguous, non-overlapping and covering the data exactly.
// Throws std::runtime_error naming the file (and the tensor) on any violation.
SafetensorsFile parseSafetensors(const uint8_t* bytes, uint64_t size, const std::string& fileName);

// mmap(MAP_PRIVATE) of a whole file and parseSafetensors over it; the mapping lives in keepAlive.
SafetensorsFile mapSafetensors(const std::string& path);

} // namespace maskscope::engine
