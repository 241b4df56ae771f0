// The globals jinja2 and transformers give chat templates: range, namespace, dict, raise_exception,
// strftime_now (and lipsum, cycler, joiner, which raise a clear error).
#pragma once
#include "core/template/jinja/Interpreter.h"

#include <string>

namespace maskscope::jinja {

Value makeGlobal(const std::string& name); // Undefined when there is no such global

} // namespace maskscope::jinja
