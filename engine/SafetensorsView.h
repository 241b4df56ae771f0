// Safetensors weights for the LibTorch module: memory mapping, and the validated views the model
// wraps in tensors. The validation itself is core/util/SafetensorsLayout (the program's one safetensors
// validator, torch-free); this file only maps files and indexes their tensors by name.
#pragma once
#include "core/util/SafetensorsLayout.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace maskscope::engine {

using TensorEntry = maskscope::SafetensorsTensor;

// A validated view of one safetensors buffer. The bytes stay owned by whoever holds `keepAlive`.
struct SafetensorsView {
  std::string fileName;
  const uint8_t* data = nullptr; // start of the data section
  uint64_t dataSize = 0;
  std::map<std::string, TensorEntry> tensors;
  std::map<std::string, std::string> metadata;
  std::shared_ptr<void> keepAlive; // the mapping (or nothing for caller-owned memory)
};

// Validates bytes [0, size) as a safetensors file (maskscope::validateSafetensors) and views them.
// Throws maskscope::Error (a std::runtime_error) naming the file and the tensor on any violation.
SafetensorsView viewSafetensors(const uint8_t* bytes, uint64_t size, const std::string& fileName);

// mmap(MAP_PRIVATE) of a whole file and viewSafetensors over it; the mapping lives in keepAlive.
SafetensorsView mapSafetensors(const std::string& path);

} // namespace maskscope::engine
