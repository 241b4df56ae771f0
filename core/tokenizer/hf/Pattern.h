// The {"String": s} / {"Regex": r} pattern objects of Replace and Split components, as one regex
// (a string pattern is quoted) so every component matches the same way.
#pragma once
#include "core/tokenizer/hf/HfJson.h"
#include "core/tokenizer/hf/Regex.h"

#include <memory>
#include <stdexcept>

namespace maskscope::hf {

struct Pattern {
  std::string literal; // the string form; empty for a regex
  bool isRegex = false;
  std::shared_ptr<Regex> regex; // always set (a literal is quoted)
};

inline Pattern parsePattern(const Json& v, const JsonPath& at) {
  Pattern p;
  std::string source;
  if (v.is_string()) { // old files: a bare string
    p.literal = v.get<std::string>();
    source = Regex::quote(p.literal);
  } else if (const Json* s = optMember(v, "String")) {
    p.literal = getString(*s, at / "String");
    source = Regex::quote(p.literal);
  } else if (const Json* r = optMember(v, "Regex")) {
    p.isRegex = true;
    source = getString(*r, at / "Regex");
  } else {
    at.fail("unsupported: pattern must be {\"String\": ...} or {\"Regex\": ...}");
  }
  try {
    p.regex = std::make_shared<Regex>(source);
  } catch (const std::invalid_argument& e) {
    at.fail(e.what());
  }
  return p;
}

} // namespace maskscope::hf
