// Python whitespace stripping on UTF-8 (see PythonText.h).
#include "core/frameworks/pytext/PythonText.h"
#include "core/util/Utf8.h"

namespace maskscope::pytext {

bool isPythonSpace(char32_t c) {
  // CPython's _PyUnicode_IsWhitespace: bidirectional types WS, B, S plus the Zs category.
  if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return true;
  switch (c) {
  case 0x85:
  case 0xA0:
  case 0x1680:
  case 0x2028:
  case 0x2029:
  case 0x202F:
  case 0x205F:
  case 0x3000:
    return true;
  default:
    return c >= 0x2000 && c <= 0x200A;
  }
}

namespace {

// Byte offset just past the leading whitespace.
size_t leadingEnd(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    size_t next = pos;
    if (!isPythonSpace(utf8::decode(s, next))) break;
    pos = next;
  }
  return pos;
}

// Byte offset where the trailing whitespace begins.
size_t trailingBegin(std::string_view s) {
  size_t end = 0, pos = 0;
  while (pos < s.size()) {
    size_t next = pos;
    if (!isPythonSpace(utf8::decode(s, next))) end = next;
    pos = next;
  }
  return end;
}

} // namespace

std::string lstrip(std::string_view s) { return std::string(s.substr(leadingEnd(s))); }
std::string rstrip(std::string_view s) { return std::string(s.substr(0, trailingBegin(s))); }
std::string strip(std::string_view s) {
  const size_t b = leadingEnd(s);
  if (b == s.size()) return {};
  return std::string(s.substr(b, trailingBegin(s) - b));
}

} // namespace maskscope::pytext
