// The helpers every builtin family shares (BuiltinSupport.h).
#include "core/template/jinja/BuiltinSupport.h"

namespace maskscope::jinja {

[[noreturn]] void typeError(const std::string& m) { throw JinjaError("TypeError", m); }

const Value* arg(CallArgs& a, size_t i, std::string_view name) { return a.get(i, name); }

std::string argStr(CallArgs& a, size_t i, std::string_view name, const std::string& def) {
  const Value* v = a.get(i, name);
  if (!v || v->isNone() || v->isUndefined()) return def;
  return v->toStr();
}

int64_t argInt(CallArgs& a, size_t i, std::string_view name, int64_t def) {
  const Value* v = a.get(i, name);
  if (!v || v->isNone() || v->isUndefined()) return def;
  if (v->type() == Type::Float) return floatToInt(v->asFloat());
  if (!v->isNumber()) typeError("'" + std::string(name) + "' must be an integer, not " + v->typeName());
  return v->asInt();
}

bool argBool(CallArgs& a, size_t i, std::string_view name, bool def) {
  const Value* v = a.get(i, name);
  return v ? v->truthy() : def;
}

Value callable(std::string name, std::function<Value(Interpreter&, CallArgs&)> fn) {
  auto c = std::make_shared<CallableObj>();
  c->name = std::move(name);
  c->fn = std::move(fn);
  return Value::callable(std::move(c));
}

Value strList(std::vector<std::string> parts) {
  std::vector<Value> v;
  v.reserve(parts.size());
  for (auto& p : parts) v.push_back(Value::string(std::move(p)));
  return Value::list(std::move(v));
}

Value itemsOf(const Value& d) {
  std::vector<Value> out;
  out.reserve(d.dictObj().entries.size());
  for (const auto& [k, v] : d.dictObj().entries) {
    auto t = std::make_shared<ListObj>();
    t->tuple = true;
    t->items = {Value::string(k), v};
    out.push_back(Value::list(std::move(t)));
  }
  return Value::list(std::move(out));
}

} // namespace maskscope::jinja
