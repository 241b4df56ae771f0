// Safetensors header validation and bounded tensor reads. Every number in the header is untrusted:
// sizes are checked with overflow-safe arithmetic before anything is allocated or read.
#include "core/batchio/SafetensorsReader.h"
#include "core/util/Error.h"
#include "core/util/Utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace maskscope {

namespace {

struct DtypeInfo {
  const char* name;
  int bits;
  bool integer;
};

constexpr DtypeInfo kDtypes[] = {
    {"BOOL", 8, true},     {"U8", 8, true},       {"I8", 8, true},       {"I16", 16, true},     {"U16", 16, true},
    {"I32", 32, true},     {"U32", 32, true},     {"I64", 64, true},     {"U64", 64, true},     {"F4", 4, false},
    {"F6_E2M3", 6, false}, {"F6_E3M2", 6, false}, {"F8_E5M2", 8, false}, {"F8_E4M3", 8, false}, {"F8_E8M0", 8, false},
    {"F16", 16, false},    {"BF16", 16, false},   {"F32", 32, false},    {"F64", 64, false},    {"C64", 64, false},
};

const DtypeInfo* dtypeInfo(const std::string& d) {
  for (const auto& i : kDtypes)
    if (d == i.name) return &i;
  return nullptr;
}

bool mulOverflows(uint64_t a, uint64_t b, uint64_t& out) { return __builtin_mul_overflow(a, b, &out); }

uint64_t readLe64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

} // namespace

int safetensorsDtypeSize(const std::string& dtype) {
  const DtypeInfo* i = dtypeInfo(dtype);
  return i && i->bits % 8 == 0 ? i->bits / 8 : 0;
}

bool safetensorsDtypeIsInteger(const std::string& dtype) {
  const DtypeInfo* i = dtypeInfo(dtype);
  return i && i->integer;
}

int64_t SafetensorsTensor::elementCount() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d; // validated against overflow when parsed
  return n;
}

SafetensorsFile::SafetensorsFile(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_, std::ios::binary | std::ios::ate);
  if (!in) throw Error("cannot open the file", {path_});
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error("cannot read the file size", {path_});
  const uint64_t fileSize = uint64_t(size);
  if (fileSize < 8)
    throw Error("not a safetensors file: " + std::to_string(fileSize) + " bytes, the 8-byte header length is missing",
                {path_});
  in.seekg(0);
  unsigned char head[8];
  in.read(reinterpret_cast<char*>(head), 8);
  const uint64_t n = readLe64(head);
  if (n > kSafetensorsMaxHeader)
    throw Error("safetensors header length " + std::to_string(n) + " is over the 100 MB limit", {path_, -1, -1, 0});
  if (8 + n > fileSize)
    throw Error("safetensors header length " + std::to_string(n) + " runs past the end of the file (" +
                    std::to_string(fileSize) + " bytes)",
                {path_, -1, -1, 0});
  std::string header(size_t(n), '\0');
  in.read(header.data(), std::streamsize(n));
  if (uint64_t(in.gcount()) != n)
    throw Error("the file is shorter than it claims (truncated header)", {path_, -1, -1, 8});
  parseHeader(header, fileSize);
}

SafetensorsFile SafetensorsFile::fromBytes(std::string bytes, std::string name) {
  SafetensorsFile f;
  f.path_ = std::move(name);
  f.memory_ = std::make_shared<const std::string>(std::move(bytes));
  const std::string& b = *f.memory_;
  if (b.size() < 8)
    throw Error("not a safetensors file: " + std::to_string(b.size()) + " bytes, the 8-byte header length is missing",
                {f.path_});
  const uint64_t n = readLe64(reinterpret_cast<const unsigned char*>(b.data()));
  if (n > kSafetensorsMaxHeader)
    throw Error("safetensors header length " + std::to_string(n) + " is over the 100 MB limit", {f.path_, -1, -1, 0});
  if (8 + n > b.size())
    throw Error("safetensors header length " + std::to_string(n) + " runs past the end of the file (" +
                    std::to_string(b.size()) + " bytes)",
                {f.path_, -1, -1, 0});
  f.parseHeader(b.substr(8, size_t(n)), b.size());
  return f;
}

void SafetensorsFile::parseHeader(const std::string& header, uint64_t fileSize) {
  const uint64_t n = header.size();
  dataStart_ = 8 + n;
  SourceLocation where{path_, -1, -1, 8};
  if (int64_t bad = utf8::firstInvalid(header); bad >= 0) {
    where.byteOffset = long(8 + bad);
    throw Error("safetensors header is not valid UTF-8", where);
  }
  if (header.empty() || header[0] != '{') throw Error("safetensors header does not start with '{'", where);
  nlohmann::json j = nlohmann::json::parse(header, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error("safetensors header is not a JSON object", where);

  for (auto it = j.begin(); it != j.end(); ++it) {
    SourceLocation at = where;
    at.field = it.key();
    const nlohmann::json& v = it.value();
    if (it.key() == "__metadata__") {
      if (v.is_null()) continue;
      if (!v.is_object()) throw Error("__metadata__ must be an object of strings", at);
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) throw Error("__metadata__ value \"" + m.key() + "\" is not a string", at);
        metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    if (!v.is_object()) throw Error("tensor entry is not an object", at);
    SafetensorsTensor t;
    t.name = it.key();
    auto dt = v.find("dtype");
    if (dt == v.end() || !dt->is_string()) throw Error("tensor has no \"dtype\" string", at);
    t.dtype = dt->get<std::string>();
    const DtypeInfo* info = dtypeInfo(t.dtype);
    if (!info) throw Error("unknown dtype \"" + t.dtype + "\"", at);
    auto sh = v.find("shape");
    if (sh == v.end() || !sh->is_array()) throw Error("tensor has no \"shape\" list", at);
    uint64_t elements = 1;
    for (const auto& d : *sh) {
      if (!d.is_number_unsigned()) throw Error("shape holds something other than non-negative integers", at);
      const uint64_t dim = d.get<uint64_t>();
      if (dim > uint64_t(INT64_MAX) || mulOverflows(elements, dim, elements) || elements > uint64_t(INT64_MAX))
        throw Error("shape overflows", at);
      t.shape.push_back(int64_t(dim));
    }
    auto off = v.find("data_offsets");
    if (off == v.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned())
      throw Error("tensor has no \"data_offsets\" [begin, end] of non-negative integers", at);
    t.begin = (*off)[0].get<uint64_t>();
    t.end = (*off)[1].get<uint64_t>();
    uint64_t bits = 0;
    if (mulOverflows(elements, uint64_t(info->bits), bits)) throw Error("tensor size overflows", at);
    if (bits % 8 != 0) throw Error("tensor of " + t.dtype + " does not fill whole bytes", at);
    if (t.end < t.begin)
      throw Error("data_offsets end " + std::to_string(t.end) + " is before begin " + std::to_string(t.begin), at);
    if (t.end - t.begin != bits / 8)
      throw Error("data_offsets give " + std::to_string(t.end - t.begin) + " bytes, but " + t.dtype +
                      " of this shape needs " + std::to_string(bits / 8),
                  at);
    tensors_.push_back(std::move(t));
  }
  // Sorted by offsets, the tensors must tile the data section exactly: contiguous from 0, no
  // overlap, no gap, nothing left over.
  std::vector<const SafetensorsTensor*> sorted;
  for (const auto& t : tensors_) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](const SafetensorsTensor* a, const SafetensorsTensor* b) {
    return std::pair(a->begin, a->end) < std::pair(b->begin, b->end);
  });
  uint64_t expected = 0;
  for (const SafetensorsTensor* t : sorted) {
    if (t->begin != expected) {
      SourceLocation at = where;
      at.field = t->name;
      throw Error(t->begin < expected ? "data_offsets overlap the previous tensor (begin " + std::to_string(t->begin) +
                                            ", previous ends at " + std::to_string(expected) + ")"
                                      : "data_offsets leave a gap (begin " + std::to_string(t->begin) +
                                            ", previous ends at " + std::to_string(expected) + ")",
                  at);
    }
    expected = t->end;
  }
  const uint64_t dataSize = fileSize - dataStart_;
  if (expected != dataSize)
    throw Error("the tensors cover " + std::to_string(expected) + " bytes but the data section holds " +
                    std::to_string(dataSize) + (expected > dataSize ? " (truncated file)" : " (trailing bytes)"),
                {path_, -1, -1, long(dataStart_)});
}

const SafetensorsTensor* SafetensorsFile::find(const std::string& name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

std::string SafetensorsFile::readBytes(uint64_t begin, uint64_t size) const {
  if (memory_) return memory_->substr(size_t(dataStart_ + begin), size_t(size));
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw Error("cannot open the file", {path_});
  in.seekg(std::streamoff(dataStart_ + begin));
  std::string out(size_t(size), '\0');
  in.read(out.data(), std::streamsize(size));
  if (uint64_t(in.gcount()) != size)
    throw Error("the file changed while reading (short read)", {path_, -1, -1, long(dataStart_ + begin)});
  return out;
}

TensorGrid SafetensorsFile::readIntegers(const std::string& name, int64_t maxElements) const {
  const SafetensorsTensor* t = find(name);
  if (!t) throw Error("no tensor named \"" + name + "\"", {path_, -1, -1, -1, name});
  SourceLocation at{path_, -1, -1, long(dataStart_ + t->begin), name};
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
