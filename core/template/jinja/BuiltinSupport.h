// What every family of builtins (globals, methods, filters, tests) shares: argument access with
// Python's defaults, TypeError, callables, lists of strings, dict items, and the tables by name. The
// builtins reading only their operand (str.upper(), |length, ...) sit in OperandEntry tables.
#pragma once
#include "core/template/jinja/Interpreter.h"

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace maskscope::jinja {

[[noreturn]] void typeError(const std::string& message);

// Argument i (positional) or `name` (keyword); null when absent.
const Value* arg(CallArgs& a, size_t i, std::string_view name);
// The argument as a string / integer / truth value; def when absent, None or undefined.
std::string argStr(CallArgs& a, size_t i, std::string_view name, const std::string& def = {});
int64_t argInt(CallArgs& a, size_t i, std::string_view name, int64_t def);
bool argBool(CallArgs& a, size_t i, std::string_view name, bool def);

Value callable(std::string name, std::function<Value(Interpreter&, CallArgs&)> fn);
Value strList(std::vector<std::string> parts);
// dict.items(): a list of (key, value) tuples.
Value itemsOf(const Value& dict);

// A builtin that reads only its operand: one line `{"upper", [](const Value& v) {...}}` in its
// family's OperandEntry table instead of a lambda with the family's full, unused parameter list.
// Operand: Value for filters, std::string for str methods.
template <class Operand> struct OperandEntry {
  const char* names;
  Value (*fn)(const Operand&);
};

// A name -> function map from table entries whose `names` list a function and its aliases,
// space-separated.
template <class Fn, class Entry, size_t N> std::unordered_map<std::string, Fn> byName(const Entry (&entries)[N]) {
  std::unordered_map<std::string, Fn> m;
  for (const Entry& e : entries) {
    std::string_view names = e.names;
    while (!names.empty()) {
      const size_t space = names.find(' ');
      m.emplace(std::string(names.substr(0, space)), e.fn);
      names = space == std::string_view::npos ? std::string_view() : names.substr(space + 1);
    }
  }
  return m;
}

} // namespace maskscope::jinja
