// Batch dumps saved as .safetensors: the header validated by core/util/SafetensorsLayout (the one
// safetensors validator, shared with the LibTorch module), tensor bytes read on demand with
// bounded reads, integer tensors widened to int64 for the batch.
#pragma once
#include "core/forward/ForwardEngine.h" // TensorGrid
#include "core/util/SafetensorsLayout.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace maskscope {

class SafetensorsReader {
public:
  // Reads and validates the header; throws Error naming the file and the field or byte.
  explicit SafetensorsReader(std::string path);
  // The same validation on bytes already in memory (the whole file, copied).
  static SafetensorsReader fromBytes(std::string bytes, std::string name);

  const std::string& path() const { return path_; }
  const std::vector<SafetensorsTensor>& tensors() const { return layout_.tensors; } // sorted by name
  const std::map<std::string, std::string>& metadata() const { return layout_.metadata; }
  const SafetensorsTensor* find(const std::string& name) const { return layout_.find(name); }
  // An integer or BOOL tensor's values widened to int64 (little-endian data); throws Error for
  // float dtypes or more than maxElements values.
  TensorGrid readIntegers(const std::string& name, int64_t maxElements = int64_t(1) << 26) const;

private:
  SafetensorsReader() = default;
  std::string readBytes(uint64_t begin, uint64_t size) const;

  std::string path_;
  std::shared_ptr<const std::string> memory_; // fromBytes: the whole file
  SafetensorsLayout layout_;
};

} // namespace maskscope
