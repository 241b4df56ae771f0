// jinja2's builtin tests (`x is defined`, `is string`, `is divisibleby 3`, ...).
#pragma once
#include "core/template/jinja/Interpreter.h"

#include <string>

namespace maskscope::jinja {

// v is name(args); throws TemplateAssertionError for an unknown test.
bool testValue(Interpreter& in, const std::string& name, const Value& v, CallArgs& args);

} // namespace maskscope::jinja
