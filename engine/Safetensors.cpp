// Safetensors validation and memory mapping (see Safetensors.h).
#include "engine/Safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fcntl.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace maskscope::engine {
namespace {

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw std::runtime_error(file + ": " + what);
}

struct Mapping {
  void* addr = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (addr) ::munmap(addr, size);
  }
};

} // namespace

size_t dtypeSize(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
  return 0;
}

SafetensorsFile parseSafetensors(const uint8_t* bytes, uint64_t size, const std::string& fileName) {
  if (size < 8) fail(fileName, "not a safetensors file: shorter than its 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  if (n > kMaxSafetensorsHeader)
    fail(fileName, "safetensors header of " + std::to_string(n) + " bytes is over the 100 MB limit");
  if (n > size - 8)
    fail(fileName, "safetensors header length " + std::to_string(n) + " runs past the end of the file (" +
                       std::to_string(size) + " bytes)");
  std::string_view text(reinterpret_cast<const char*>(bytes + 8), size_t(n));
  if (text.empty() || text.front() != '{') fail(fileName, "safetensors header does not start with '{'");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    fail(fileName, std::string("safetensors header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail(fileName, "safetensors header is not a JSON object");

  SafetensorsFile file;
  file.fileName = fileName;
  file.data = bytes + 8 + n;
  file.dataSize = size - 8 - n;
  std::vector<const TensorEntry*> byOffset;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) fail(fileName, "__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m)
        if (m.value().is_string()) file.metadata[m.key()] = m.value().get<std::string>();
      continue;
    }
    auto bad = [&](const std::string& what) { fail(fileName, "tensor '" + name + "': " + what); };
    if (!v.is_object()) bad("entry is not an object");
    if (!v.contains("dtype") || !v["dtype"].is_string()) bad("missing dtype");
    if (!v.contains("shape") || !v["shape"].is_array()) bad("missing shape");
    if (!v.contains("data_offsets") || !v["data_offsets"].is_array() || v["data_offsets"].size() != 2)
      bad("missing data_offsets");
    TensorEntry e;
    e.name = name;
    e.dtype = v["dtype"].get<std::string>();
    size_t elem = dtypeSize(e.dtype);
    if (elem == 0) bad("unknown dtype " + e.dtype);
    uint64_t count = 1; // element count, overflow-checked (caps keep it far below 2^64)
    for (const auto& d : v["shape"]) {
      if (!d.is_number_unsigned()) bad("shape holds a value that is not a non-negative integer");
      uint64_t dim = d.get<uint64_t>();
      if (dim > (uint64_t(1) << 48)) bad("dimension too large");
      e.shape.push_back(int64_t(dim));
      if (__builtin_mul_overflow(count, dim, &count) || count > (uint64_t(1) << 60)) bad("too many elements");
    }
    for (const auto& o : v["data_offsets"])
      if (!o.is_number_unsigned()) bad("data_offsets are not non-negative integers");
    e.begin = v["data_offsets"][0].get<uint64_t>();
    e.end = v["data_offsets"][1].get<uint64_t>();
    if (e.end < e.begin) bad("data_offsets end before they begin");
    if (count * elem != e.end - e.begin) // count <= 2^60, elem <= 8: no overflow
      bad("dtype " + e.dtype + " x shape needs " + std::to_string(count * elem) + " bytes but data_offsets span " +
          std::to_string(e.end - e.begin));
    auto [pos, inserted] = file.tensors.emplace(name, std::move(e));
    if (!inserted) bad("appears twice");
    byOffset.push_back(&pos->second);
  }
  // Offsets must tile the data section: sorted, each starting where the previous ended.
  std::sort(byOffset.begin(), byOffset.end(), [](const TensorEntry* a, const TensorEntry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t expected = 0;
  for (const TensorEntry* e : byOffset) {
    if (e->begin != expected)
      fail(fileName, "tensor '" + e->name + "' starts at byte " + std::to_string(e->begin) + " of the data, expected " +
                         std::to_string(expected) + " (offsets must be contiguous and must not overlap)");
    expected = e->end;
  }
  if (expected != file.dataSize)
    fail(fileName, "tensors cover " + std::to_string(expected) + " bytes but the data section holds " +
                       std::to_string(file.dataSize) + " (file length does not match the header)");
  return file;
}

SafetensorsFile mapSafetensors(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(path, "not a regular file");
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->size = size_t(st.st_size);
  if (mapping->size == 0) {
    ::close(fd);
    fail(path, "empty file");
  }
  // Private and writable: copy-on-write, so a stray in-place op can never touch the file or fault.
  void* addr = ::mmap(nullptr, mapping->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (addr == MAP_FAILED) fail(path, "cannot map into memory");
  mapping->addr = addr;
  SafetensorsFile f = parseSafetensors(static_cast<const uint8_t*>(addr), mapping->size, path);
  f.keepAlive = mapping;
  return f;
}

} // namespace maskscope::engine
