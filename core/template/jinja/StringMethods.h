// Python's str methods as the sandbox allows them (strip, split, replace, startswith, find, format,
// isdigit, ...), and the string helpers the filters share with them.
#pragma once
#include "core/template/jinja/Interpreter.h"

#include <string>
#include <vector>

namespace maskscope::jinja {

// s.<name>(args) into r; false when str has no such method.
bool stringMethod(Interpreter& in, const std::string& s, const std::string& name, CallArgs& a, Value& r);
bool isStringMethod(const std::string& name);

// str.split() (maxsplit -1: no limit) and str.split(sep).
std::vector<std::string> splitWhitespace(const std::string& s, int64_t maxsplit);
std::vector<std::string> splitSep(const std::string& s, const std::string& sep, int64_t maxsplit);
// str.replace(from, to, count), within the interpreter's output limit.
std::string replaceAll(Interpreter& in, const std::string& s, const std::string& from, const std::string& to,
                       int64_t count);

} // namespace maskscope::jinja
