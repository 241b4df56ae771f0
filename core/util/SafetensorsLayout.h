// The safetensors format, validated as its reference implementation (huggingface/safetensors) does:
// u64 LE header length (capped at 100 MB) that fits the file, a UTF-8 JSON object header starting
// with '{', an optional "__metadata__" map of strings, and tensors whose data_offsets, sorted, tile
// the data section exactly, each with byte size = element count x dtype size. No torch and no I/O:
// batch dumps (core/batchio) read through it, and the LibTorch module wraps its views in tensors.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope {

inline constexpr uint64_t kSafetensorsMaxHeader = 100'000'000; // the reference implementation's cap

struct SafetensorsTensor {
  std::string name;
  std::string dtype; // "I64", "I32", "BOOL", "F32", "BF16", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0; // byte range inside the data section
  int64_t elementCount() const;
};

// Where everything lies in one validated file.
struct SafetensorsLayout {
  uint64_t dataStart = 0;                 // 8 + header length: the data section's first byte in the file
  uint64_t dataSize = 0;                  // bytes of the data section, exactly covered by the tensors
  std::vector<SafetensorsTensor> tensors; // sorted by name
  std::map<std::string, std::string> metadata;
  const SafetensorsTensor* find(const std::string& name) const;
};

// The header length from a file's first 8 bytes, checked against the cap and the file size.
// Throws Error naming `file`.
uint64_t safetensorsHeaderLength(std::string_view first8, uint64_t fileSize, const std::string& file);
// Validates the header text (the bytes after the length) against a file of fileSize bytes.
SafetensorsLayout validateSafetensorsHeader(std::string_view header, uint64_t fileSize, const std::string& file);
// Both, over a whole file in memory (read or mapped).
SafetensorsLayout validateSafetensors(std::string_view file, const std::string& name);

// Size in bytes of one element of a safetensors dtype, 0 for unknown dtypes and sub-byte ones.
int safetensorsDtypeSize(const std::string& dtype);
bool safetensorsDtypeIsInteger(const std::string& dtype); // BOOL, U8, I8, I16, U16, I32, U32, I64, U64

} // namespace maskscope
