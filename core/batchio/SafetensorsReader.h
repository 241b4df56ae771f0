// Reads .safetensors files as the format's reference implementation (huggingface/safetensors)
// validates them: u64 LE header length (capped at 100 MB) that fits the file, a UTF-8 JSON object
// header starting with '{', an optional "__metadata__" map of strings, and tensors whose
// data_offsets, sorted, are contiguous from 0, non-overlapping and cover the data section exactly,
// each with byte size = element count x dtype size. Tensor bytes are read on demand (bounded reads).
#pragma once
#include "core/forward/ForwardEngine.h" // TensorGrid

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace maskscope {

inline constexpr uint64_t kSafetensorsMaxHeader = 100'000'000; // the reference implementation's cap

struct SafetensorsTensor {
  std::string name;
  std::string dtype; // "I64", "I32", "BOOL", "F32", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0; // byte range inside the data section
  int64_t elementCount() const;
};

class SafetensorsFile {
public:
  // Reads and validates the header; throws Error naming the file and the field or byte.
  explicit SafetensorsFile(std::string path);
  // The same validation on bytes already in memory (the whole file, copied).
  static SafetensorsFile fromBytes(std::string bytes, std::string name);

  const std::string& path() const { return path_; }
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; } // in file order
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const SafetensorsTensor* find(const std::string& name) const;
  // An integer or BOOL tensor's values widened to int64 (little-endian data); throws Error for
  // float dtypes or more than maxElements values.
  TensorGrid readIntegers(const std::string& name, int64_t maxElements = int64_t(1) << 26) const;

private:
  SafetensorsFile() = default;
  void parseHeader(const std::string& header, uint64_t fileSize);
  std::string readBytes(uint64_t begin, uint64_t size) const;

  std::string path_;
  std::shared_ptr<const std::string> memory_; // fromBytes: the whole file
  uint64_t dataStart_ = 0;
  std::vector<SafetensorsTensor> tensors_;
  std::map<std::string, std::string> metadata_;
};

// Size in bytes of one element of a safetensors dtype, 0 for unknown dtypes.
int safetensorsDtypeSize(const std::string& dtype);
bool safetensorsDtypeIsInteger(const std::string& dtype); // BOOL, U8, I8, I16, U16, I32, U32, I64, U64

} // namespace maskscope
