// Safetensors batch dumps: header validation delegated to core/util/SafetensorsLayout, bounded tensor reads.
#include "core/batchio/SafetensorsReader.h"
#include "core/util/Error.h"

#include <algorithm>
#include <fstream>

namespace maskscope {

SafetensorsReader::SafetensorsReader(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_, std::ios::binary | std::ios::ate);
  if (!in) throw Error("cannot open the file", {path_});
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error("cannot read the file size", {path_});
  in.seekg(0);
  std::string head(8, '\0');
  in.read(head.data(), 8);
  head.resize(size_t(std::max<std::streamsize>(0, in.gcount())));
  const uint64_t n = safetensorsHeaderLength(head, uint64_t(size), path_);
  std::string header(size_t(n), '\0');
  in.read(header.data(), std::streamsize(n));
  if (uint64_t(in.gcount()) != n)
    throw Error("the file is shorter than it claims (truncated header)", {path_, -1, -1, 8});
  layout_ = validateSafetensorsHeader(header, uint64_t(size), path_);
}

SafetensorsReader SafetensorsReader::fromBytes(std::string bytes, std::string name) {
  SafetensorsReader f;
  f.path_ = std::move(name);
  f.memory_ = std::make_shared<const std::string>(std::move(bytes));
  f.layout_ = validateSafetensors(*f.memory_, f.path_);
  return f;
}

std::string SafetensorsReader::readBytes(uint64_t begin, uint64_t size) const {
  if (memory_) return memory_->substr(size_t(layout_.dataStart + begin), size_t(size));
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw Error("cannot open the file", {path_});
  in.seekg(std::streamoff(layout_.dataStart + begin));
  std::string out(size_t(size), '\0');
  in.read(out.data(), std::streamsize(size));
  if (uint64_t(in.gcount()) != size)
    throw Error("the file changed while reading (short read)", {path_, -1, -1, long(layout_.dataStart + begin)});
  return out;
}

TensorGrid SafetensorsReader::readIntegers(const std::string& name, int64_t maxElements) const {
  const SafetensorsTensor* t = find(name);
  if (!t) throw Error("no tensor named \"" + name + "\"", {path_, -1, -1, -1, name});
  SourceLocation at{path_, -1, -1, long(layout_.dataStart + t->begin), name};
  if (!safetensorsDtypeIsInteger(t->dtype))
    throw Error("dtype " + t->dtype +
                    " is not an integer type (ids, masks and labels must be I64, I32, I16, I8, U8 or BOOL)",
                at);
  const int64_t n = t->elementCount();
  if (n > maxElements)
    throw Error(std::to_string(n) + " values is over the limit of " + std::to_string(maxElements), at);
  const int size = safetensorsDtypeSize(t->dtype);
  const std::string bytes = readBytes(t->begin, t->end - t->begin);
  TensorGrid g;
  g.shape = t->shape;
  g.dtype = t->dtype;
  g.values.resize(size_t(n));
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const bool isSigned = t->dtype[0] == 'I';
  for (int64_t i = 0; i < n; ++i, p += size) {
    uint64_t u = 0;
    for (int b = size - 1; b >= 0; --b) u = (u << 8) | p[b];
    int64_t v;
    if (isSigned && size < 8 && (u >> (size * 8 - 1)) & 1)
      v = int64_t(u) - (int64_t(1) << (size * 8)); // sign-extend
    else
      v = int64_t(u);
    if (t->dtype == "U64" && u > uint64_t(INT64_MAX)) throw Error("a U64 value does not fit in int64", at);
    if (t->dtype == "BOOL") v = u != 0;
    g.values[size_t(i)] = v;
  }
  return g;
}

} // namespace maskscope
