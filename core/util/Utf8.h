// UTF-8 helpers used by parsers and tokenizers: validation, decoding, boundaries.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace maskscope::utf8 {

// Length of the code point whose lead byte is c (1 for invalid lead bytes).
inline int sequenceLength(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xE) return 3;
  if ((c >> 3) == 0x1E) return 4;
  return 1;
}

// Byte offset of the first invalid sequence, or -1 when s is valid UTF-8.
int64_t firstInvalid(std::string_view s);
inline bool isValid(std::string_view s) { return firstInvalid(s) < 0; }
// Decodes the code point at pos (advancing pos); invalid bytes decode as U+FFFD, one byte each.
char32_t decode(std::string_view s, size_t& pos);
void append(std::string& out, char32_t cp);
// Replaces invalid sequences with U+FFFD.
std::string sanitize(std::string_view s);
// Makes whitespace and control characters visible for display: space -> ␣, \n -> ↵, \t -> →.
std::string visibleWhitespace(std::string_view s);

} // namespace maskscope::utf8
