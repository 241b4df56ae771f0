// Typed access to tokenizer.json fields that throws maskscope::Error naming the file and the
// field path ("pre_tokenizer.pretokenizers[1].pattern") instead of nlohmann's bare messages.
#pragma once
#include "core/util/Error.h"

#include <nlohmann/json.hpp>

#include <string>

namespace maskscope::hf {

using Json = nlohmann::json;

struct JsonPath {
  const std::string* file;
  std::string field;

  JsonPath operator/(const std::string& key) const { return {file, field.empty() ? key : field + "." + key}; }
  JsonPath operator[](size_t i) const { return {file, field + "[" + std::to_string(i) + "]"}; }
  [[noreturn]] void fail(const std::string& message) const {
    SourceLocation where;
    where.file = *file;
    where.field = field;
    throw Error(message + (field.empty() ? std::string() : " (at " + field + ")"), where);
  }
};

inline const Json& member(const Json& obj, const char* key, const JsonPath& at) {
  if (!obj.is_object()) at.fail("expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) (at / key).fail(std::string("missing field \"") + key + "\"");
  return *it;
}
inline const Json* optMember(const Json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}
inline std::string getString(const Json& v, const JsonPath& at) {
  if (!v.is_string()) at.fail("expected a string");
  return v.get<std::string>();
}
inline std::string optString(const Json& obj, const char* key, const JsonPath& at, std::string dflt = {}) {
  const Json* v = optMember(obj, key);
  return v ? getString(*v, at / key) : dflt;
}
inline bool optBool(const Json& obj, const char* key, const JsonPath& at, bool dflt) {
  const Json* v = optMember(obj, key);
  if (!v) return dflt;
  if (!v->is_boolean()) (at / key).fail("expected true or false");
  return v->get<bool>();
}
inline int64_t getInt(const Json& v, const JsonPath& at, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) at.fail("expected an integer");
  int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX) ? INT64_MAX : v.get<int64_t>();
  if (x < lo || x > hi)
    at.fail("integer " + std::to_string(x) + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}
inline std::string typeOf(const Json& v, const JsonPath& at) { return getString(member(v, "type", at), at / "type"); }

} // namespace maskscope::hf
