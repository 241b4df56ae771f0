// GPT-2's byte-to-unicode table: every byte gets a printable character ("Ġ" for space, "Ċ" for
// newline) so byte-level vocabularies are plain strings.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace maskscope::hf {

struct ByteLevelTable {
  std::array<std::string, 256> toUnicode; // byte -> UTF-8 of its character
  std::array<int16_t, 0x200> toByte;      // code point (< 0x200) -> byte, -1 when none

  ByteLevelTable() {
    toByte.fill(-1);
    int extra = 0;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      int cp = printable ? b : 256 + extra++;
      std::string s;
      if (cp < 0x80)
        s += char(cp);
      else {
        s += char(0xC0 | (cp >> 6));
        s += char(0x80 | (cp & 0x3F));
      }
      toUnicode[size_t(b)] = s;
      toByte[size_t(cp)] = int16_t(b);
    }
  }
  static const ByteLevelTable& get() {
    static const ByteLevelTable table;
    return table;
  }
};

} // namespace maskscope::hf
