// Writes a string as a JSON string literal for streamed output: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, and U+2028 / U+2029 / U+0085 escaped so
// readers that split lines on them (JavaScript, Python's str.splitlines) never cut a record.
#pragma once
#include <string>
#include <string_view>

namespace maskscope {

void appendJsonString(std::string& out, std::string_view text);
std::string jsonString(std::string_view text);
// A JSON text (e.g. nlohmann's dump()) with U+2028, U+2029 and U+0085 written as \u escapes. Those
// bytes can only stand inside string literals there, so the document's meaning is unchanged.
std::string escapeLineSeparators(std::string json);

} // namespace maskscope
