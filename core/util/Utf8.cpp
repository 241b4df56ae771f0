// UTF-8 validation and decoding (strict: no overlongs, no surrogates, max U+10FFFF).
#include "core/util/Utf8.h"

namespace maskscope::utf8 {

static int validLength(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  int n = sequenceLength(c);
  if (n == 1 || i + n > s.size()) return 0;
  for (int k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  char32_t cp = 0;
  if (n == 2) cp = ((c & 0x1F) << 6) | (b(i + 1) & 0x3F);
  if (n == 3) cp = ((c & 0x0F) << 12) | ((b(i + 1) & 0x3F) << 6) | (b(i + 2) & 0x3F);
  if (n == 4) cp = ((c & 0x07) << 18) | ((b(i + 1) & 0x3F) << 12) | ((b(i + 2) & 0x3F) << 6) | (b(i + 3) & 0x3F);
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return 0;
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

int64_t firstInvalid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    int n = validLength(s, i);
    if (n == 0) return static_cast<int64_t>(i);
    i += n;
  }
  return -1;
}

char32_t decode(std::string_view s, size_t& pos) {
  int n = validLength(s, pos);
  if (n == 0) {
    ++pos;
    return 0xFFFD;
  }
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[pos + k]); };
  char32_t cp;
  switch (n) {
  case 1:
    cp = b(0);
    break;
  case 2:
    cp = ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    break;
  case 3:
    cp = ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    break;
  default:
    cp = ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
  pos += n;
  return cp;
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80)
    out += static_cast<char>(cp);
  else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string sanitize(std::string_view s) {
  if (isValid(s)) return std::string(s);
  std::string out;
  for (size_t i = 0; i < s.size();) append(out, decode(s, i));
  return out;
}

std::string visibleWhitespace(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    char32_t cp = decode(s, i);
    switch (cp) {
    case ' ':
      out += "\xE2\x90\xA3";
      break; // ␣
    case '\n':
      out += "\xE2\x86\xB5";
      break; // ↵
    case '\r':
      out += "\xE2\x90\x8D";
      break; // ␍
    case '\t':
      out += "\xE2\x86\x92";
      break; // →
    default:
      if (cp < 0x20) {
        out += "\\x";
        const char* hex = "0123456789ABCDEF";
        out += hex[cp >> 4];
        out += hex[cp & 15];
      } else
        append(out, cp);
    }
  }
  return out;
}

} // namespace maskscope::utf8
