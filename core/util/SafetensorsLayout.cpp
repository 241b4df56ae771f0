// Safetensors header validation. Every number in the header is untrusted: sizes are checked with
// overflow-safe arithmetic before anything is allocated or read.
#include "core/util/SafetensorsLayout.h"
#include "core/util/Error.h"
#include "core/util/JsonParse.h"
#include "core/util/Utf8.h"

#include <algorithm>

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

void readMetadata(const nlohmann::json& v, const SourceLocation& at, std::map<std::string, std::string>& out) {
  if (v.is_null()) return;
  if (!v.is_object()) throw Error("__metadata__ must be an object of strings", at);
  for (auto m = v.begin(); m != v.end(); ++m) {
    if (!m.value().is_string()) throw Error("__metadata__ value \"" + m.key() + "\" is not a string", at);
    out[m.key()] = m.value().get<std::string>();
  }
}

// One tensor entry: dtype known, shape of non-negative integers without overflow, data_offsets
// [begin, end] spanning exactly element count x dtype size bytes.
SafetensorsTensor readTensor(const std::string& name, const nlohmann::json& v, const SourceLocation& at) {
  if (!v.is_object()) throw Error("tensor entry is not an object", at);
  SafetensorsTensor t;
  t.name = name;
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
  return t;
}

// Sorted by offsets, the tensors must tile the data section: contiguous from 0, no overlap, no gap,
// nothing left over.
void checkTiling(const SafetensorsLayout& l, const SourceLocation& where) {
  std::vector<const SafetensorsTensor*> sorted;
  for (const auto& t : l.tensors) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](const SafetensorsTensor* a, const SafetensorsTensor* b) {
    return std::pair(a->begin, a->end) < std::pair(b->begin, b->end);
  });
  uint64_t expected = 0;
  for (const SafetensorsTensor* t : sorted) {
    if (t->begin != expected) {
      SourceLocation at = where;
      at.field = t->name;
      const std::string detail = " (begin " + std::to_string(t->begin) + ", previous ends at " +
                                 std::to_string(expected) + "; offsets must be contiguous)";
      throw Error(t->begin < expected ? "data_offsets overlap the previous tensor" + detail
                                      : "data_offsets leave a gap" + detail,
                  at);
    }
    expected = t->end;
  }
  if (expected != l.dataSize)
    throw Error("the tensors cover " + std::to_string(expected) + " bytes but the data section holds " +
                    std::to_string(l.dataSize) + (expected > l.dataSize ? " (truncated file)" : " (trailing bytes)"),
                {where.file, -1, -1, long(l.dataStart)});
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

const SafetensorsTensor* SafetensorsLayout::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

uint64_t safetensorsHeaderLength(std::string_view first8, uint64_t fileSize, const std::string& file) {
  if (fileSize < 8 || first8.size() < 8)
    throw Error("not a safetensors file: " + std::to_string(fileSize) + " bytes, shorter than the 8-byte header length",
                {file});
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(first8[size_t(i)]);
  if (n > kSafetensorsMaxHeader)
    throw Error("safetensors header length " + std::to_string(n) + " is over the 100 MB limit", {file, -1, -1, 0});
  if (n > fileSize - 8)
    throw Error("safetensors header length " + std::to_string(n) + " runs past the end of the file (" +
                    std::to_string(fileSize) + " bytes)",
                {file, -1, -1, 0});
  return n;
}

SafetensorsLayout validateSafetensorsHeader(std::string_view header, uint64_t fileSize, const std::string& file) {
  SafetensorsLayout l;
  l.dataStart = 8 + header.size();
  l.dataSize = fileSize - l.dataStart;
  SourceLocation where{file, -1, -1, 8};
  if (int64_t bad = utf8::firstInvalid(header); bad >= 0) {
    where.byteOffset = long(8 + bad);
    throw Error("safetensors header is not valid UTF-8", where);
  }
  if (header.empty() || header[0] != '{') throw Error("safetensors header does not start with '{'", where);
  std::string parseError;
  nlohmann::json j = parseJsonOrExplain(std::string(header), &parseError);
  if (j.is_discarded()) throw Error("safetensors header is not valid JSON (not a JSON object): " + parseError, where);
  if (!j.is_object()) throw Error("safetensors header is not a JSON object", where);
  for (auto it = j.begin(); it != j.end(); ++it) {
    SourceLocation at = where;
    at.field = it.key();
    if (it.key() == "__metadata__")
      readMetadata(it.value(), at, l.metadata);
    else
      l.tensors.push_back(readTensor(it.key(), it.value(), at));
  }
  checkTiling(l, where);
  return l;
}

SafetensorsLayout validateSafetensors(std::string_view file, const std::string& name) {
  const uint64_t n = safetensorsHeaderLength(file.substr(0, 8), file.size(), name);
  return validateSafetensorsHeader(file.substr(8, size_t(n)), file.size(), name);
}

} // namespace maskscope
