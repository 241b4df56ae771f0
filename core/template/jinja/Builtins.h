// jinja2's builtins as the transformers sandbox exposes them: globals, the str/dict/list methods,
// filters and tests. The interpreter calls them by name; they call back into it.
#pragma once
#include "core/template/jinja/Interpreter.h"

#include <string>

namespace maskscope::jinja {

Value makeGlobal(const std::string& name); // range, namespace, dict, raise_exception, ...; Undefined if none
bool callMethod(Interpreter& in, const Value& obj, const std::string& name, CallArgs& args, Value& result);
Value boundMethod(const Value& obj, const std::string& name); // Undefined when obj has no such method
Value filterValue(Interpreter& in, const std::string& name, const Value& v, CallArgs& args);
bool testValue(Interpreter& in, const std::string& name, const Value& v, CallArgs& args);

} // namespace maskscope::jinja
