// JSON string literals for streamed output; see JsonString.h for what is escaped and why.
#include "core/util/JsonString.h"
#include "core/util/Utf8.h"

namespace maskscope {

namespace {

void appendEscape(std::string& out, char32_t cp) {
  static const char* hex = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += hex[(cp >> shift) & 0xF];
}

} // namespace

void appendJsonString(std::string& out, std::string_view text) {
  out += '"';
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const char32_t cp = utf8::decode(text, pos);
    switch (cp) {
    case U'"':
      out += "\\\"";
      break;
    case U'\\':
      out += "\\\\";
      break;
    case U'\n':
      out += "\\n";
      break;
    case U'\r':
      out += "\\r";
      break;
    case U'\t':
      out += "\\t";
      break;
    case U'\b':
      out += "\\b";
      break;
    case U'\f':
      out += "\\f";
      break;
    default:
      if (cp < 0x20 || cp == 0x85 || cp == 0x2028 || cp == 0x2029 || cp == 0x7F) {
        appendEscape(out, cp);
      } else if (cp == 0xFFFD && text.compare(start, 3, "\xEF\xBF\xBD") != 0) {
        out += "\xEF\xBF\xBD"; // an invalid byte: decode() already counted it as U+FFFD
      } else {
        out.append(text.substr(start, pos - start));
      }
    }
  }
  out += '"';
}

std::string jsonString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  appendJsonString(out, text);
  return out;
}

std::string escapeLineSeparators(std::string json) {
  if (json.find("\xE2\x80\xA8") == std::string::npos && json.find("\xE2\x80\xA9") == std::string::npos &&
      json.find("\xC2\x85") == std::string::npos)
    return json;
  std::string out;
  out.reserve(json.size() + 16);
  for (size_t i = 0; i < json.size(); ++i) {
    if (json.compare(i, 3, "\xE2\x80\xA8") == 0) {
      out += "\\u2028";
      i += 2;
    } else if (json.compare(i, 3, "\xE2\x80\xA9") == 0) {
      out += "\\u2029";
      i += 2;
    } else if (json.compare(i, 2, "\xC2\x85") == 0) {
      out += "\\u0085";
      i += 1;
    } else {
      out += json[i];
    }
  }
  return out;
}

} // namespace maskscope
