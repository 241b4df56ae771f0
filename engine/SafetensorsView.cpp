// Safetensors memory mapping and name-indexed views over core's validation (see SafetensorsView.h).
#include "engine/SafetensorsView.h"

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

SafetensorsView viewSafetensors(const uint8_t* bytes, uint64_t size, const std::string& fileName) {
  SafetensorsLayout layout =
      maskscope::validateSafetensors(std::string_view(reinterpret_cast<const char*>(bytes), size_t(size)), fileName);
  SafetensorsView file;
  file.fileName = fileName;
  file.data = bytes + layout.dataStart;
  file.dataSize = layout.dataSize;
  file.metadata = std::move(layout.metadata);
  for (SafetensorsTensor& t : layout.tensors) file.tensors.emplace(t.name, std::move(t));
  return file;
}

SafetensorsView mapSafetensors(const std::string& path) {
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
  SafetensorsView f = viewSafetensors(static_cast<const uint8_t*>(addr), mapping->size, path);
  f.keepAlive = mapping;
  return f;
}

} // namespace maskscope::engine
