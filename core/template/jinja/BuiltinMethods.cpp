// Methods on template values (BuiltinMethods.h).
#include "core/template/jinja/BuiltinMethods.h"
#include "core/template/jinja/BuiltinSupport.h"
#include "core/template/jinja/Operators.h"
#include "core/template/jinja/StringMethods.h"

namespace maskscope::jinja {

namespace {

const char* const kListMutators[] = {"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"};
const char* const kDictMutators[] = {"clear", "pop", "popitem", "setdefault", "update"};

template <size_t N> bool inList(const char* const (&list)[N], const std::string& name) {
  for (const char* s : list)
    if (name == s) return true;
  return false;
}

Value unsafeMutator(const Value& obj, const std::string& name) {
  return Value::unsafe("access to attribute '" + name + "' of '" + obj.typeName() + "' object is unsafe.");
}

} // namespace

Value boundMethod(const Value& obj, const std::string& name) {
  bool ok = false;
  switch (obj.type()) {
  case Type::String:
    ok = isStringMethod(name);
    break;
  case Type::Dict:
    if (inList(kDictMutators, name)) return unsafeMutator(obj, name);
    ok = name == "get" || name == "items" || name == "keys" || name == "values" || name == "copy";
    break;
  case Type::List:
    if (inList(kListMutators, name)) return unsafeMutator(obj, name);
    ok = name == "index" || name == "count" || name == "copy";
    break;
  default:
    break;
  }
  if (!ok) return Value();
  Value self = obj;
  return callable(name, [self, name](Interpreter& in, CallArgs& a) -> Value {
    Value r;
    if (!callMethod(in, self, name, a, r)) typeError("'" + name + "' is not callable");
    return r;
  });
}

bool callMethod(Interpreter& in, const Value& obj, const std::string& name, CallArgs& a, Value& r) {
  switch (obj.type()) {
  case Type::String:
    return stringMethod(in, obj.str(), name, a, r);
  case Type::Dict: {
    if (name == "get") {
      const Value* k = arg(a, 0, "key");
      if (!k) typeError("get expected at least 1 argument, got 0");
      const Value* found = k->isString() ? obj.dictObj().find(k->str()) : nullptr;
      if (found)
        r = *found;
      else if (const Value* d = arg(a, 1, "default"))
        r = *d;
      else
        r = Value::none();
      return true;
    }
    if (name == "items") {
      r = itemsOf(obj);
      return true;
    }
    if (name == "keys") {
      r = Value::list(iterate(obj));
      return true;
    }
    if (name == "values") {
      std::vector<Value> v;
      for (const auto& e : obj.dictObj().entries) v.push_back(e.second);
      r = Value::list(std::move(v));
      return true;
    }
    if (name == "copy") {
      auto d = std::make_shared<DictObj>(obj.dictObj());
      r = Value::dict(std::move(d));
      return true;
    }
    if (inList(kDictMutators, name)) throwUndefined(unsafeMutator(obj, name));
    return false;
  }
  case Type::List: {
    if (name == "index" || name == "count") {
      const Value* x = arg(a, 0, "value");
      if (!x) typeError(name + "() takes exactly one argument (0 given)");
      const auto& items = obj.listObj().items;
      int64_t c = 0;
      for (size_t i = 0; i < items.size(); ++i) {
        if (pyEquals(items[i], *x)) {
          if (name == "index") {
            r = Value::integer(int64_t(i));
            return true;
          }
          ++c;
        }
      }
      if (name == "index") throw JinjaError("ValueError", x->toStr() + " is not in list");
      r = Value::integer(c);
      return true;
    }
    if (name == "copy") {
      r = Value::list(obj.listObj().items);
      return true;
    }
    if (inList(kListMutators, name)) throwUndefined(unsafeMutator(obj, name));
    return false;
  }
  default:
    return false;
  }
}

} // namespace maskscope::jinja
