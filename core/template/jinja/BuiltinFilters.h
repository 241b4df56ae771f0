// jinja2's builtin filters as the transformers sandbox exposes them (trim, tojson, join, map,
// selectattr, indent, ...).
#pragma once
#include "core/template/jinja/Interpreter.h"

#include <string>

namespace maskscope::jinja {

// v | name(args); throws TemplateAssertionError for an unknown filter.
Value filterValue(Interpreter& in, const std::string& name, const Value& v, CallArgs& args);

} // namespace maskscope::jinja
