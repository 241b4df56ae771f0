// Value construction, truthiness, str()/repr() and tojson, each as CPython/jinja2 would do it.
#include "core/template/jinja/Value.h"

#include "core/template/jinja/Interpreter.h" // JinjaError
#include "core/template/jinja/PyString.h"
#include "core/util/Error.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace maskscope::jinja {

namespace {
const std::string kEmpty;
} // namespace

Value Value::undefined(std::string hint) {
  Value v;
  if (!hint.empty()) {
    auto u = std::make_shared<UndefinedObj>();
    u->hint = std::move(hint);
    v.obj_ = std::move(u);
  }
  return v;
}

Value Value::unsafe(std::string message) {
  Value v;
  auto u = std::make_shared<UndefinedObj>();
  u->hint = std::move(message);
  u->security = true;
  v.obj_ = std::move(u);
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.type_ = Type::String;
  v.obj_ = std::make_shared<StringObj>(std::move(s));
  return v;
}

Value Value::string(std::shared_ptr<const StringObj> s) {
  Value v;
  v.type_ = Type::String;
  v.obj_ = std::const_pointer_cast<StringObj>(std::move(s));
  return v;
}

Value Value::list(std::vector<Value> items) {
  auto l = std::make_shared<ListObj>();
  l->items = std::move(items);
  return list(std::move(l));
}

Value Value::list(std::shared_ptr<ListObj> l) {
  Value v;
  v.type_ = Type::List;
  v.obj_ = std::move(l);
  return v;
}

Value Value::dict(std::shared_ptr<DictObj> d) {
  Value v;
  v.type_ = Type::Dict;
  v.obj_ = std::move(d);
  return v;
}

Value Value::ns(std::shared_ptr<DictObj> d) {
  Value v;
  v.type_ = Type::Namespace;
  v.obj_ = std::move(d);
  return v;
}

Value Value::callable(std::shared_ptr<CallableObj> c) {
  Value v;
  v.type_ = Type::Callable;
  v.obj_ = std::move(c);
  return v;
}

Value Value::loop(std::shared_ptr<LoopObj> l) {
  Value v;
  v.type_ = Type::Loop;
  v.obj_ = std::move(l);
  return v;
}

namespace {
// Messages, tools and extra variables come from untrusted datasets; conversion recurses once per
// nesting level, so a hostile row nested thousands deep must end in an Error, not a stack overflow.
constexpr int kMaxJsonDepth = 256;

template <class Json> Value valueFromJson(const Json& j, int depth = 0) {
  if (depth > kMaxJsonDepth)
    throw maskscope::Error("JSON value nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  switch (j.type()) {
  case nlohmann::json::value_t::null:
    return Value::none();
  case nlohmann::json::value_t::boolean:
    return Value::boolean(j.template get<bool>());
  case nlohmann::json::value_t::number_integer:
    return Value::integer(j.template get<int64_t>());
  case nlohmann::json::value_t::number_unsigned: {
    uint64_t u = j.template get<uint64_t>();
    if (u > uint64_t(INT64_MAX)) return Value::real(double(u));
    return Value::integer(int64_t(u));
  }
  case nlohmann::json::value_t::number_float:
    return Value::real(j.template get<double>());
  case nlohmann::json::value_t::string:
    return Value::string(j.template get<std::string>());
  case nlohmann::json::value_t::array: {
    std::vector<Value> items;
    items.reserve(j.size());
    for (const auto& e : j) items.push_back(valueFromJson(e, depth + 1));
    return Value::list(std::move(items));
  }
  case nlohmann::json::value_t::object: {
    auto d = std::make_shared<DictObj>();
    d->entries.reserve(j.size());
    // nlohmann's default json sorts keys; ordered_json keeps them. Both arrive here in their order.
    for (auto it = j.begin(); it != j.end(); ++it)
      d->entries.emplace_back(it.key(), valueFromJson(it.value(), depth + 1));
    return Value::dict(std::move(d));
  }
  default:
    return Value::none();
  }
}

} // namespace

Value Value::fromJson(const nlohmann::json& j) { return valueFromJson(j); }
Value Value::fromJson(const nlohmann::ordered_json& j) { return valueFromJson(j); }

const std::string& Value::str() const {
  if (type_ != Type::String) return kEmpty;
  return static_cast<const StringObj*>(obj_.get())->value;
}
const ListObj& Value::listObj() const { return *static_cast<const ListObj*>(obj_.get()); }
const DictObj& Value::dictObj() const { return *static_cast<const DictObj*>(obj_.get()); }
DictObj& Value::mutableDict() const { return *static_cast<DictObj*>(obj_.get()); }
const CallableObj& Value::callableObj() const { return *static_cast<const CallableObj*>(obj_.get()); }
LoopObj& Value::loopObj() const { return *static_cast<LoopObj*>(obj_.get()); }
const UndefinedObj* Value::undefinedObj() const {
  return type_ == Type::Undefined ? static_cast<const UndefinedObj*>(obj_.get()) : nullptr;
}

bool Value::truthy() const {
  switch (type_) {
  case Type::Undefined:
  case Type::None:
    return false;
  case Type::Bool:
  case Type::Int:
    return i_ != 0;
  case Type::Float:
    return d_ != 0.0;
  case Type::String:
    return !str().empty();
  case Type::List:
    return !listObj().items.empty();
  case Type::Dict:
    return !dictObj().entries.empty();
  default:
    return true;
  }
}

std::string Value::typeName() const {
  switch (type_) {
  case Type::Undefined:
    return "Undefined";
  case Type::None:
    return "NoneType";
  case Type::Bool:
    return "bool";
  case Type::Int:
    return "int";
  case Type::Float:
    return "float";
  case Type::String:
    return "str";
  case Type::List:
    return listObj().tuple ? "tuple" : "list";
  case Type::Dict:
    return "dict";
  case Type::Callable:
    return "function";
  case Type::Namespace:
    return "Namespace";
  case Type::Loop:
    return "LoopContext";
  }
  return "object";
}

namespace {
bool isContainer(Type t) { return t == Type::List || t == Type::Dict || t == Type::Namespace; }
} // namespace

// Containers held only here are moved onto a worklist; each is then destroyed with its own
// container children already moved out, so every destructor returns after one level.
static void drainNested(std::vector<std::shared_ptr<Object>>& pending);

void Value::releaseNested(std::vector<Value>& items) {
  std::vector<std::shared_ptr<Object>> pending;
  for (auto& v : items)
    if (isContainer(v.type_) && v.obj_ && v.obj_.use_count() == 1) pending.push_back(std::move(v.obj_));
  drainNested(pending);
}

void Value::releaseNested(std::vector<std::pair<std::string, Value>>& entries) {
  std::vector<std::shared_ptr<Object>> pending;
  for (auto& e : entries)
    if (isContainer(e.second.type_) && e.second.obj_ && e.second.obj_.use_count() == 1)
      pending.push_back(std::move(e.second.obj_));
  drainNested(pending);
}

static void drainNested(std::vector<std::shared_ptr<Object>>& pending) {
  while (!pending.empty()) {
    std::shared_ptr<Object> o = std::move(pending.back());
    pending.pop_back();
    // Move this object's own sole-owned containers out before it dies (its destructor then finds
    // nothing left to recurse into).
    if (auto* l = dynamic_cast<ListObj*>(o.get())) {
      std::vector<Value> items = std::move(l->items);
      l->items.clear();
      for (auto& v : items)
        if (v.type() == Type::List || v.type() == Type::Dict || v.type() == Type::Namespace)
          if (v.object() && v.object().use_count() == 1) pending.push_back(v.object());
      // items (and so the extra references just taken) die here; the containers live on in pending.
    } else if (auto* d = dynamic_cast<DictObj*>(o.get())) {
      std::vector<std::pair<std::string, Value>> entries = std::move(d->entries);
      d->entries.clear();
      for (auto& e : entries)
        if (e.second.type() == Type::List || e.second.type() == Type::Dict || e.second.type() == Type::Namespace)
          if (e.second.object() && e.second.object().use_count() == 1) pending.push_back(e.second.object());
    }
  }
}

std::string Value::toStr() const {
  if (type_ == Type::String) return str();
  std::string s;
  appendStr(s);
  return s;
}

void Value::appendStr(std::string& out) const {
  switch (type_) {
  case Type::Undefined:
    return;
  case Type::String:
    out += str();
    return;
  default:
    appendRepr(out);
  }
}

// Templates can build lists nested 100k deep ({% set ns.x = [ns.x] %} in a loop) or a namespace that
// holds itself; printing either must end in an error, not a stack overflow. 200 as for tojson.
void Value::appendRepr(std::string& out, int depth) const {
  if (depth > 200)
    throw JinjaError("RecursionError", "maximum recursion depth exceeded while getting the repr of an object");
  switch (type_) {
  case Type::Undefined:
    return;
  case Type::None:
    out += "None";
    return;
  case Type::Bool:
    out += i_ ? "True" : "False";
    return;
  case Type::Int:
    out += std::to_string(i_);
    return;
  case Type::Float:
    out += py::floatRepr(d_);
    return;
  case Type::String:
    py::appendRepr(out, str());
    return;
  case Type::List: {
    const auto& l = listObj();
    out.push_back(l.tuple ? '(' : '[');
    for (size_t i = 0; i < l.items.size(); ++i) {
      if (i) out += ", ";
      l.items[i].appendRepr(out, depth + 1);
    }
    if (l.tuple && l.items.size() == 1) out.push_back(',');
    out.push_back(l.tuple ? ')' : ']');
    return;
  }
  case Type::Dict:
  case Type::Namespace: {
    if (type_ == Type::Namespace) out += "<Namespace ";
    out.push_back('{');
    bool first = true;
    for (const auto& [k, v] : dictObj().entries) {
      if (!first) out += ", ";
      first = false;
      py::appendRepr(out, k);
      out += ": ";
      v.appendRepr(out, depth + 1);
    }
    out.push_back('}');
    if (type_ == Type::Namespace) out.push_back('>');
    return;
  }
  case Type::Callable:
    out += "<function " + callableObj().name + ">";
    return;
  case Type::Loop:
    out += "<LoopContext>";
    return;
  }
}

void Value::appendJson(std::string& out, int indent, int depth) const {
  if (depth > 200) throw std::runtime_error("tojson: value nested too deeply");
  auto newline = [&](int d) {
    out.push_back('\n');
    out.append(size_t(indent) * size_t(d), ' ');
  };
  switch (type_) {
  case Type::None:
    out += "null";
    return;
  case Type::Bool:
    out += i_ ? "true" : "false";
    return;
  case Type::Int:
    out += std::to_string(i_);
    return;
  case Type::Float:
    if (std::isnan(d_))
      out += "NaN";
    else if (std::isinf(d_))
      out += d_ > 0 ? "Infinity" : "-Infinity";
    else
      out += py::floatRepr(d_);
    return;
  case Type::String:
    py::appendJsonString(out, str());
    return;
  case Type::List: {
    const auto& items = listObj().items;
    if (items.empty()) {
      out += "[]";
      return;
    }
    out.push_back('[');
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += indent >= 0 ? "," : ", ";
      if (indent >= 0) newline(depth + 1);
      items[i].appendJson(out, indent, depth + 1);
    }
    if (indent >= 0) newline(depth);
    out.push_back(']');
    return;
  }
  case Type::Dict: {
    const auto& entries = dictObj().entries;
    if (entries.empty()) {
      out += "{}";
      return;
    }
    out.push_back('{');
    bool first = true;
    for (const auto& [k, v] : entries) {
      if (!first) out += indent >= 0 ? "," : ", ";
      first = false;
      if (indent >= 0) newline(depth + 1);
      py::appendJsonString(out, k);
      out += ": ";
      v.appendJson(out, indent, depth + 1);
    }
    if (indent >= 0) newline(depth);
    out.push_back('}');
    return;
  }
  default:
    throw std::runtime_error("Object of type " + typeName() + " is not JSON serializable");
  }
}

} // namespace maskscope::jinja
