// The template globals (BuiltinGlobals.h).
#include "core/template/jinja/BuiltinGlobals.h"
#include "core/template/jinja/BuiltinSupport.h"
#include "core/template/jinja/Strftime.h"

namespace maskscope::jinja {

Value makeGlobal(const std::string& name) {
  if (name == "range") {
    return callable("range", [](Interpreter& in, CallArgs& a) -> Value {
      int64_t start = 0, stop, step = 1;
      auto num = [](const Value& v) {
        if (v.type() != Type::Int && v.type() != Type::Bool)
          typeError("'" + v.typeName() + "' object cannot be interpreted as an integer");
        return v.asInt();
      };
      if (a.positional.size() == 1)
        stop = num(a.positional[0]);
      else if (a.positional.size() >= 2) {
        start = num(a.positional[0]);
        stop = num(a.positional[1]);
        if (a.positional.size() >= 3) step = num(a.positional[2]);
      } else
        typeError("range expected at least 1 argument, got 0");
      if (step == 0) throw JinjaError("ValueError", "range() arg 3 must not be zero");
      int64_t count = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0)
                               : (start > stop ? (start - stop - step - 1) / -step : 0);
      if (count > 100000)
        throw JinjaError("OverflowError", "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
      in.countIterations(count / 16);
      std::vector<Value> v;
      v.reserve(size_t(count));
      for (int64_t i = 0; i < count; ++i) v.push_back(Value::integer(start + i * step));
      return Value::list(std::move(v));
    });
  }
  if (name == "namespace" || name == "dict") {
    bool isNs = name == "namespace";
    return callable(name, [isNs](Interpreter& in, CallArgs& a) -> Value {
      auto d = std::make_shared<DictObj>();
      for (const auto& p : a.positional) {
        if (p.type() == Type::Dict || p.type() == Type::Namespace) {
          for (const auto& [k, v] : p.dictObj().entries) d->set(k, v);
        } else if (p.isList()) {
          for (const auto& kv : p.listObj().items) {
            if (!kv.isList() || kv.listObj().items.size() != 2)
              throw JinjaError("ValueError", "dictionary update sequence element has wrong length");
            d->set(kv.listObj().items[0].toStr(), kv.listObj().items[1]);
          }
        } else {
          typeError("'" + p.typeName() + "' object is not iterable");
        }
      }
      for (const auto& [k, v] : a.named) d->set(k, v);
      if (isNs) in.trackNamespace(d);
      return isNs ? Value::ns(std::move(d)) : Value::dict(std::move(d));
    });
  }
  if (name == "raise_exception") {
    return callable("raise_exception", [](Interpreter&, CallArgs& a) -> Value {
      throw JinjaError("TemplateError", a.positional.empty() ? std::string() : a.positional[0].toStr());
    });
  }
  if (name == "strftime_now") {
    return callable("strftime_now", [](Interpreter& in, CallArgs& a) -> Value {
      return Value::string(strftimeNow(argStr(a, 0, "format"), in.settings().now));
    });
  }
  if (name == "lipsum" || name == "cycler" || name == "joiner") {
    // Rarely used by chat templates; jinja2 provides them, so calling one is a clear error rather than undefined.
    return callable(name, [name](Interpreter&, CallArgs&) -> Value {
      throw JinjaError("TemplateError", "'" + name + "' is not supported by maskscope's Jinja engine");
    });
  }
  return Value();
}

} // namespace maskscope::jinja
