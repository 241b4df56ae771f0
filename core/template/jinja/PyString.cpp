// Python str semantics over UTF-8 (see PyString.h). Case mapping covers ASCII, Latin-1, Greek and
// basic Cyrillic, which is what chat templates meet in practice (role names, "model", "Assistant").
#include "core/template/jinja/PyString.h"

#include "core/util/Utf8.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace maskscope::jinja::py {

bool isSpace(char32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

bool isAscii(std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80) return false;
  return true;
}

int64_t length(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::vector<size_t> codePointOffsets(std::string_view s) {
  std::vector<size_t> off;
  off.reserve(s.size() + 1);
  size_t i = 0;
  while (i < s.size()) {
    off.push_back(i);
    size_t n = utf8::sequenceLength(static_cast<unsigned char>(s[i]));
    i = std::min(s.size(), i + n);
  }
  off.push_back(s.size());
  return off;
}

namespace {

bool inChars(char32_t c, const std::string* chars) {
  if (!chars) return isSpace(c);
  size_t p = 0;
  while (p < chars->size()) {
    if (utf8::decode(*chars, p) == c) return true;
  }
  return false;
}

// Start of the code point that ends at byte `end` (exclusive).
size_t prevStart(std::string_view s, size_t end) {
  size_t p = end - 1;
  while (p > 0 && (static_cast<unsigned char>(s[p]) & 0xC0) == 0x80 && end - p < 4) --p;
  return p;
}

char32_t mapCase(char32_t c, bool toUpper) {
  if (toUpper) {
    if (c >= 'a' && c <= 'z') return c - 32;
    if (c < 0x80) return c;
    if ((c >= 0xE0 && c <= 0xFE && c != 0xF7)) return c - 32;
    if (c == 0xFF) return 0x178;
    if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17F) {
      bool evenUpper = !(c >= 0x139 && c <= 0x148) && !(c >= 0x179 && c <= 0x17E);
      if (evenUpper) return (c % 2 == 1) ? c - 1 : c;
      return (c % 2 == 0) ? c - 1 : c;
    }
    if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;
    if (c == 0x3C2) return 0x3A3;
    if (c >= 0x430 && c <= 0x44F) return c - 32;
    if (c >= 0x450 && c <= 0x45F) return c - 80;
    return c;
  }
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0x80) return c;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c == 0x178) return 0xFF;
  if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17F) {
    bool evenUpper = !(c >= 0x139 && c <= 0x148) && !(c >= 0x179 && c <= 0x17E);
    if (evenUpper) return (c % 2 == 0) ? c + 1 : c;
    return (c % 2 == 1) ? c + 1 : c;
  }
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

bool isCased(char32_t c) { return mapCase(c, true) != c || mapCase(c, false) != c; }

std::string mapString(std::string_view s, bool toUpper) {
  std::string out;
  out.reserve(s.size());
  size_t p = 0;
  while (p < s.size()) {
    unsigned char b = static_cast<unsigned char>(s[p]);
    if (b < 0x80) {
      out.push_back(
          static_cast<char>(toUpper ? (b >= 'a' && b <= 'z' ? b - 32 : b) : (b >= 'A' && b <= 'Z' ? b + 32 : b)));
      ++p;
      continue;
    }
    if (toUpper && b == 0xC3 && p + 1 < s.size() && static_cast<unsigned char>(s[p + 1]) == 0x9F) {
      out += "SS"; // ß -> SS as CPython
      p += 2;
      continue;
    }
    utf8::append(out, mapCase(utf8::decode(s, p), toUpper));
  }
  return out;
}

} // namespace

std::string_view strip(std::string_view s, const std::string* chars, bool left, bool right) {
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e) {
      size_t p = b;
      char32_t c = utf8::decode(s, p);
      if (!inChars(c, chars)) break;
      b = p;
    }
  }
  if (right) {
    while (e > b) {
      size_t st = prevStart(s, e);
      size_t p = st;
      char32_t c = utf8::decode(s, p);
      if (!inChars(c, chars)) break;
      e = st;
    }
  }
  return s.substr(b, e - b);
}

std::string upper(std::string_view s) { return mapString(s, true); }
std::string lower(std::string_view s) { return mapString(s, false); }

std::string capitalize(std::string_view s) {
  std::string out;
  size_t p = 0;
  bool first = true;
  while (p < s.size()) {
    char32_t c = utf8::decode(s, p);
    utf8::append(out, mapCase(c, first));
    first = false;
  }
  return out;
}

std::string pyTitle(std::string_view s) {
  std::string out;
  size_t p = 0;
  bool prevCased = false;
  while (p < s.size()) {
    char32_t c = utf8::decode(s, p);
    char32_t m = prevCased ? mapCase(c, false) : mapCase(c, true);
    utf8::append(out, m);
    prevCased = isCased(c);
  }
  return out;
}

std::string jinjaTitle(std::string_view s) {
  // jinja2 do_title: re.compile(r"([-\s\(\{\[\<]+)").split(s); each word: w[0].upper() + w[1:].lower()
  std::string out;
  size_t p = 0;
  bool wordStart = true;
  while (p < s.size()) {
    char32_t c = utf8::decode(s, p);
    bool sep = c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || isSpace(c);
    if (sep) {
      utf8::append(out, c);
      wordStart = true;
    } else {
      utf8::append(out, mapCase(c, wordStart));
      wordStart = false;
    }
  }
  return out;
}

std::string floatRepr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  // sci: [-]D[.DDD]e[+-]XX
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t ePos = sci.find('e');
  std::string mant = sci.substr(0, ePos);
  int exp = std::atoi(sci.c_str() + ePos + 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits.push_back(c);
  std::string out = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    // repr uses fixed notation for 1e-4 <= |x| < 1e16
    if (exp >= 0) {
      if (int(digits.size()) <= exp + 1) {
        out += digits + std::string(exp + 1 - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
      }
    } else {
      out += "0." + std::string(-exp - 1, '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char eb[16];
  std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  out += eb;
  return out;
}

namespace {
bool isPrintable(char32_t c) {
  // CPython's str.isprintable: not Cc/Cf/Cs/Co/Cn/Zl/Zp/Zs except space. Approximation for the
  // ranges templates meet.
  if (c < 0x20 || c == 0x7F) return false;
  if (c >= 0x80 && c < 0xA0) return false;
  if (c == 0xA0 || c == 0xAD) return false;
  if (c >= 0x2000 && c <= 0x200F) return false;
  if (c >= 0x2028 && c <= 0x202F) return false;
  if (c >= 0x205F && c <= 0x206F) return false;
  if (c == 0x3000 || c == 0xFEFF || c == 0x1680) return false;
  if (c >= 0xD800 && c <= 0xDFFF) return false;
  if (c >= 0xE000 && c <= 0xF8FF) return false;
  if (c == 0xFFFD) return true;
  return true;
}
} // namespace

void appendRepr(std::string& out, std::string_view s) {
  bool hasSingle = s.find('\'') != std::string_view::npos;
  bool hasDouble = s.find('"') != std::string_view::npos;
  char q = (hasSingle && !hasDouble) ? '"' : '\'';
  out.push_back(q);
  size_t p = 0;
  while (p < s.size()) {
    size_t start = p;
    char32_t c = utf8::decode(s, p);
    if (c == static_cast<char32_t>(q) || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (!isPrintable(c)) {
      char b[16];
      if (c < 0x100)
        std::snprintf(b, sizeof b, "\\x%02x", unsigned(c));
      else if (c < 0x10000)
        std::snprintf(b, sizeof b, "\\u%04x", unsigned(c));
      else
        std::snprintf(b, sizeof b, "\\U%08x", unsigned(c));
      out += b;
    } else {
      out.append(s.substr(start, p - start));
    }
  }
  out.push_back(q);
}

void appendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t runStart = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    const char* esc = nullptr;
    char buf[8];
    switch (c) {
    case '"':
      esc = "\\\"";
      break;
    case '\\':
      esc = "\\\\";
      break;
    case '\n':
      esc = "\\n";
      break;
    case '\r':
      esc = "\\r";
      break;
    case '\t':
      esc = "\\t";
      break;
    case '\b':
      esc = "\\b";
      break;
    case '\f':
      esc = "\\f";
      break;
    default:
      if (c < 0x20) {
        std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
        esc = buf;
      }
    }
    if (esc) {
      out.append(s.substr(runStart, i - runStart));
      out += esc;
      runStart = i + 1;
    }
  }
  out.append(s.substr(runStart));
  out.push_back('"');
}

} // namespace maskscope::jinja::py
