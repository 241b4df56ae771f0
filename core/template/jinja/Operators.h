// Python operator semantics for template values: ==, <, in, + - * / // % ** ~, len() and iter().
#pragma once
#include "core/template/jinja/Interpreter.h"

#include <vector>

namespace maskscope::jinja {

bool pyEquals(const Value& a, const Value& b);
// <0, 0, >0; throws JinjaError(TypeError) for unorderable types.
int pyCompare(const Value& a, const Value& b, const char* op);
bool pyContains(const Value& container, const Value& item);
Value pyBinary(Interpreter& in, BinOp op, const Value& a, const Value& b);
std::vector<Value> iterate(const Value& v); // list(v) as Python would; throws for non-iterables
int64_t pyLength(const Value& v);           // len(v); throws for values without len

} // namespace maskscope::jinja
