// The builtin tests (BuiltinTests.h).
#include "core/template/jinja/BuiltinTests.h"
#include "core/template/jinja/BuiltinSupport.h"
#include "core/template/jinja/Operators.h"
#include "core/template/jinja/PyString.h"

namespace maskscope::jinja {

bool testValue(Interpreter& in, const std::string& n, const Value& v, CallArgs& a) {
  (void)in;
  auto other = [&]() -> const Value& {
    const Value* o = a.get(0, "other");
    if (!o) typeError("test '" + n + "' needs an argument");
    return *o;
  };
  if (n == "defined") return !v.isUndefined();
  if (n == "undefined") return v.isUndefined();
  if (n == "none") return v.isNone();
  if (n == "string") return v.isString();
  if (n == "mapping") return v.type() == Type::Dict;
  if (n == "iterable") return v.isUndefined() || v.isString() || v.isList() || v.type() == Type::Dict;
  if (n == "sequence") return v.isUndefined() || v.isString() || v.isList() || v.type() == Type::Dict;
  if (n == "number") return v.isNumber();
  if (n == "integer") return v.type() == Type::Int;
  if (n == "float") return v.type() == Type::Float;
  if (n == "boolean") return v.type() == Type::Bool;
  if (n == "true") return v.type() == Type::Bool && v.asBool();
  if (n == "false") return v.type() == Type::Bool && !v.asBool();
  if (n == "callable") return v.type() == Type::Callable;
  if (n == "equalto" || n == "eq" || n == "==" || n == "sameas") {
    if (n == "sameas") {
      const Value& o = other();
      if (v.type() != o.type()) return false;
      if (v.isNone() || v.isUndefined()) return true;
      if (v.type() == Type::Bool) return v.asBool() == o.asBool();
      if (v.object() || o.object()) return v.object() == o.object();
      return pyEquals(v, o);
    }
    return pyEquals(v, other());
  }
  if (n == "ne" || n == "!=") return !pyEquals(v, other());
  if (n == "lt" || n == "lessthan" || n == "<") return pyCompare(v, other(), "<") < 0;
  if (n == "le" || n == "<=") return pyCompare(v, other(), "<=") <= 0;
  if (n == "gt" || n == "greaterthan" || n == ">") return pyCompare(v, other(), ">") > 0;
  if (n == "ge" || n == ">=") return pyCompare(v, other(), ">=") >= 0;
  if (n == "in") return pyContains(other(), v);
  if (n == "odd" || n == "even" || n == "divisibleby") {
    if (v.isUndefined()) throwUndefined(v);
    if (!v.isNumber()) typeError("not all arguments converted during string formatting");
    if (n == "divisibleby") {
      const Value& d = other();
      if (!d.isNumber()) typeError("unsupported operand type(s) for %");
      Value r = pyBinary(in, BinOp::Mod, v, d);
      return r.asFloat() == 0;
    }
    Value r = pyBinary(in, BinOp::Mod, v, Value::integer(2));
    return (r.asFloat() != 0) == (n == "odd");
  }
  if (n == "lower") return v.isString() && py::lower(v.str()) == v.str();
  if (n == "upper") return v.isString() && py::upper(v.str()) == v.str();
  if (n == "escaped") return false;
  throw JinjaError("TemplateAssertionError", "No test named '" + n + "'.");
}

} // namespace maskscope::jinja
