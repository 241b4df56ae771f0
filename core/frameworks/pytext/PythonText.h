// Python's str.strip() / lstrip() / rstrip() on UTF-8 text: the frameworks reproduced here cut
// markers and reasoning spans with them, and Python strips every code point str.isspace() accepts
// (U+0085, U+00A0, U+3000, ...), not only ASCII whitespace.
#pragma once
#include <string>
#include <string_view>

namespace maskscope::pytext {

bool isPythonSpace(char32_t c); // str.isspace() for one code point
std::string strip(std::string_view s);
std::string lstrip(std::string_view s);
std::string rstrip(std::string_view s);

} // namespace maskscope::pytext
