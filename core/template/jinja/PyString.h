// Python str semantics over UTF-8 bytes: whitespace, code-point indexing, case mapping, repr and
// float formatting, so the interpreter prints exactly what jinja2 (running on CPython) prints.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope::jinja::py {

bool isSpace(char32_t c); // str.isspace()
bool isAscii(std::string_view s);
// Number of code points (len(str)).
int64_t length(std::string_view s);
// Byte offset of every code point, plus s.size() at the end (size length+1).
std::vector<size_t> codePointOffsets(std::string_view s);

// str.strip/lstrip/rstrip; chars == nullptr strips whitespace.
std::string_view strip(std::string_view s, const std::string* chars, bool left, bool right);

std::string upper(std::string_view s);
std::string lower(std::string_view s);
std::string capitalize(std::string_view s); // first upper, rest lower
std::string pyTitle(std::string_view s);    // str.title()
std::string jinjaTitle(std::string_view s); // the |title filter (splits at -, whitespace, brackets)

// Python repr(float) / str(float).
std::string floatRepr(double d);
// Python repr(str): quotes and escapes as CPython does.
void appendRepr(std::string& out, std::string_view s);
// json.dumps(str, ensure_ascii=False).
void appendJsonString(std::string& out, std::string_view s);
} // namespace maskscope::jinja::py
