// The methods templates call on values: str methods (StringMethods.h), dict.get/items/keys/values/copy
// and list.index/count/copy. The immutable sandbox refuses every mutating method (list.append,
// dict.update, ...) with a SecurityError, as jinja2 does.
#pragma once
#include "core/template/jinja/Interpreter.h"

#include <string>

namespace maskscope::jinja {

// obj.<name>(args) into result; false when obj has no such method.
bool callMethod(Interpreter& in, const Value& obj, const std::string& name, CallArgs& args, Value& result);
// obj.<name> as a value (a callable bound to obj); Undefined when obj has no such method.
Value boundMethod(const Value& obj, const std::string& name);

} // namespace maskscope::jinja
