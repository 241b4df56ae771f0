// The runtime values of the Jinja interpreter, modelled on the Python objects jinja2 sees:
// Undefined, None, bool, int, float, str, list, dict, callables, namespace and the loop object.
// Heavy payloads live behind shared pointers so passing values around never copies message text.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace maskscope::jinja {

enum class Type : uint8_t { Undefined, None, Bool, Int, Float, String, List, Dict, Callable, Namespace, Loop };

struct Object {
  virtual ~Object() = default;
  bool frozen = false; // shared with the AST (literals) or the caller: never mutate in place
};

class Value;
struct StringObj;
struct ListObj;
struct DictObj;
struct CallableObj;
struct LoopObj;
struct UndefinedObj;

class Value {
public:
  Value() = default; // Undefined
  static Value undefined(std::string hint = {});
  // An undefined that refuses every use with a SecurityError (sandboxed attribute).
  static Value unsafe(std::string message);
  static Value none() {
    Value v;
    v.type_ = Type::None;
    return v;
  }
  static Value boolean(bool b) {
    Value v;
    v.type_ = Type::Bool;
    v.i_ = b ? 1 : 0;
    return v;
  }
  static Value integer(int64_t i) {
    Value v;
    v.type_ = Type::Int;
    v.i_ = i;
    return v;
  }
  static Value real(double d) {
    Value v;
    v.type_ = Type::Float;
    v.d_ = d;
    return v;
  }
  static Value string(std::string s);
  static Value string(std::shared_ptr<const StringObj> s);
  static Value list(std::vector<Value> items);
  static Value list(std::shared_ptr<ListObj> l);
  static Value dict(std::shared_ptr<DictObj> d);
  static Value ns(std::shared_ptr<DictObj> d);
  static Value callable(std::shared_ptr<CallableObj> c);
  static Value loop(std::shared_ptr<LoopObj> l);
  static Value fromJson(const nlohmann::json& j);
  static Value fromJson(const nlohmann::ordered_json& j); // keeps key order, as Python's json does

  Type type() const { return type_; }
  bool isUndefined() const { return type_ == Type::Undefined; }
  bool isNone() const { return type_ == Type::None; }
  bool isString() const { return type_ == Type::String; }
  bool isNumber() const { return type_ == Type::Int || type_ == Type::Float || type_ == Type::Bool; }
  bool isList() const { return type_ == Type::List; }
  bool isDict() const { return type_ == Type::Dict; }

  bool asBool() const { return i_ != 0; }
  int64_t asInt() const { return i_; }
  double asFloat() const { return type_ == Type::Float ? d_ : double(i_); }
  const std::string& str() const; // String only
  const ListObj& listObj() const;
  const DictObj& dictObj() const; // Dict and Namespace
  DictObj& mutableDict() const;   // Namespace attribute assignment
  const CallableObj& callableObj() const;
  LoopObj& loopObj() const;
  const UndefinedObj* undefinedObj() const; // may be null
  const std::shared_ptr<Object>& object() const { return obj_; }

  bool truthy() const;
  // Python str(): what {{ value }} prints.
  std::string toStr() const;
  void appendStr(std::string& out) const;
  // Python repr(), used inside containers.
  void appendRepr(std::string& out, int depth = 0) const; // depth: nesting so far, capped (see Value.cpp)
  std::string typeName() const;                           // Python type name for messages: 'str', 'dict', 'NoneType'
  // transformers' tojson: json.dumps(ensure_ascii=False, indent=indent, sort_keys=False).
  // Throws std::runtime_error for values JSON cannot hold.
  void appendJson(std::string& out, int indent, int depth) const;

  // Destroys the lists, dicts and namespaces only these items hold without recursing once per
  // nesting level: a template can build values nested 100k deep, more than the C++ stack allows.
  static void releaseNested(std::vector<Value>& items);
  static void releaseNested(std::vector<std::pair<std::string, Value>>& entries);

private:
  Type type_ = Type::Undefined;
  union {
    int64_t i_ = 0;
    double d_;
  };
  std::shared_ptr<Object> obj_;
};

struct StringObj : Object {
  explicit StringObj(std::string s) : value(std::move(s)) {}
  std::string value;
};

struct ListObj : Object {
  ~ListObj() override { Value::releaseNested(items); }
  std::vector<Value> items;
  bool tuple = false; // prints as (a, b)
};

// An insertion-ordered dict with string keys (JSON objects, dict literals, namespaces).
struct DictObj : Object {
  ~DictObj() override { Value::releaseNested(entries); }
  std::vector<std::pair<std::string, Value>> entries;
  const Value* find(std::string_view key) const {
    for (const auto& e : entries)
      if (e.first == key) return &e.second;
    return nullptr;
  }
  void set(std::string key, Value v) {
    for (auto& e : entries)
      if (e.first == key) {
        e.second = std::move(v);
        return;
      }
    entries.emplace_back(std::move(key), std::move(v));
  }
};

struct UndefinedObj : Object {
  std::string hint;      // "'x' is undefined", "'dict object' has no attribute 'y'"
  bool security = false; // raise SecurityError rather than UndefinedError
};

class Interpreter;
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> named;
  const Value* get(size_t i, std::string_view name) const {
    if (i < positional.size()) return &positional[i];
    for (const auto& n : named)
      if (n.first == name) return &n.second;
    return nullptr;
  }
};

struct CallableObj : Object {
  std::string name;
  std::function<Value(Interpreter&, CallArgs&)> fn;
};

// jinja2's LoopContext, built per for-loop.
struct LoopObj : Object {
  const std::vector<Value>* items = nullptr;
  int64_t index0 = 0;
  int64_t depth0 = 0;
};

} // namespace maskscope::jinja
