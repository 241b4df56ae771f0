// jinja2's builtin filters (BuiltinFilters.h), with jinja2's argument names and defaults; every
// result that can grow is checked against the interpreter's output limit.
#include "core/template/jinja/BuiltinFilters.h"
#include "core/template/jinja/BuiltinSupport.h"
#include "core/template/jinja/Operators.h"
#include "core/template/jinja/PyString.h"
#include "core/template/jinja/StringMethods.h"
#include "core/util/HtmlEscape.h"

#include <algorithm>
#include <cmath>

namespace maskscope::jinja {

namespace {

// jinja2's make_attrgetter: "a.b.0" walks attributes/items.
Value attrPath(Interpreter& in, const Value& v, const std::string& path) {
  Value cur = v;
  size_t p = 0;
  while (p <= path.size()) {
    size_t e = path.find('.', p);
    std::string part = path.substr(p, e == std::string::npos ? std::string::npos : e - p);
    if (!part.empty() && std::all_of(part.begin(), part.end(), ::isdigit))
      cur = in.getItem(cur, Value::integer(std::stoll(part)));
    else
      cur = in.getItem(cur, Value::string(part));
    if (e == std::string::npos) break;
    p = e + 1;
  }
  return cur;
}

bool lessForSort(const Value& a, const Value& b, bool caseSensitive) {
  if (!caseSensitive && a.isString() && b.isString()) return py::lower(a.str()) < py::lower(b.str());
  return pyCompare(a, b, "<") < 0;
}

Value selectOrReject(Interpreter& in, const Value& seq, CallArgs& a, bool select, bool byAttr) {
  std::vector<Value> out;
  size_t argi = 0;
  std::string attr;
  if (byAttr) {
    if (a.positional.empty()) typeError("selectattr() requires an attribute name");
    attr = a.positional[0].toStr();
    argi = 1;
  }
  std::string test;
  CallArgs testArgs;
  if (a.positional.size() > argi) {
    test = a.positional[argi].toStr();
    testArgs.positional.assign(a.positional.begin() + long(argi) + 1, a.positional.end());
  }
  for (const auto& item : iterate(seq)) {
    in.countIterations(1);
    Value v = byAttr ? attrPath(in, item, attr) : item;
    bool ok = test.empty() ? v.truthy() : in.applyTest(test, v, testArgs);
    if (ok == select) out.push_back(item);
  }
  return Value::list(std::move(out));
}

Value doRound(const Value& v, int64_t precision, const std::string& method) {
  if (v.type() == Type::Int || v.type() == Type::Bool) {
    if (method == "common") return Value::integer(v.asInt());
    return Value::real(double(v.asInt()));
  }
  if (v.type() != Type::Float) typeError("type " + v.typeName() + " doesn't define __round__ method");
  double x = v.asFloat();
  double scale = std::pow(10.0, double(precision));
  double r;
  if (method == "common")
    r = std::nearbyint(x * scale) / scale;
  else if (method == "ceil")
    r = std::ceil(x * scale) / scale;
  else if (method == "floor")
    r = std::floor(x * scale) / scale;
  else
    throw JinjaError("FilterArgumentError", "method must be common, ceil or floor");
  return Value::real(r);
}

Value toInt(const Value& v, const Value& def, int64_t base) {
  switch (v.type()) {
  case Type::Int:
    return v;
  case Type::Bool:
    return Value::integer(v.asInt());
  case Type::Float:
    if (!std::isfinite(v.asFloat())) return def;
    return Value::integer(floatToInt(v.asFloat()));
  case Type::String: {
    std::string s(py::strip(v.str(), nullptr, true, true));
    std::string t;
    for (char c : s)
      if (c != '_') t.push_back(c);
    if (t.empty()) return def;
    char* end = nullptr;
    errno = 0;
    long long x = std::strtoll(t.c_str(), &end, int(base));
    if (end && *end == 0 && errno == 0) return Value::integer(x);
    double d = std::strtod(t.c_str(), &end);
    if (end && *end == 0 && std::isfinite(d)) return Value::integer(floatToInt(d));
    return def;
  }
  default:
    return def;
  }
}

Value toFloat(const Value& v, const Value& def) {
  switch (v.type()) {
  case Type::Int:
  case Type::Bool:
    return Value::real(double(v.asInt()));
  case Type::Float:
    return v;
  case Type::String: {
    std::string s(py::strip(v.str(), nullptr, true, true));
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && end && *end == 0) return Value::real(d);
    return def;
  }
  default:
    return def;
  }
}

std::string indentText(const std::string& s, const std::string& pad, bool first, bool blank) {
  // jinja2 do_indent: lines = (s + "\n").splitlines(); blank lines are left alone unless blank=True.
  std::vector<std::string> lines = splitSep(s, "\n", -1);
  std::string rv;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) {
      rv.push_back('\n');
      if (blank || !lines[i].empty()) rv += pad;
    }
    rv += lines[i];
  }
  if (first) rv = pad + rv;
  return rv;
}

// Jinja2's builtin filters (as the transformers sandbox exposes them), by name: each entry names
// a filter and its aliases, space-separated.
using FilterFn = Value (*)(Interpreter& in, const std::string& n, const Value& v, CallArgs& a);
struct FilterEntry {
  const char* names;
  FilterFn fn;
};
const FilterEntry kFilters[] = {
    {"trim",
     [](Interpreter&, const std::string&, const Value& v, CallArgs& a) -> Value {
       std::string s = v.toStr();
       const Value* c = arg(a, 0, "chars");
       std::string chars;
       const std::string* cp = nullptr;
       if (c && !c->isNone()) {
         chars = c->toStr();
         cp = &chars;
       }
       return Value::string(std::string(py::strip(s, cp, true, true)));
     }},
    {"tojson",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       int indent = -1;
       if (const Value* iv = a.get(99, "indent"); iv && !iv->isNone()) {
         if (iv->type() == Type::Int)
           indent = int(std::clamp<int64_t>(iv->asInt(), 0, 64));
         else if (iv->isString())
           indent = int(std::min<size_t>(iv->str().size(), 64));
       }
       std::string out;
       try {
         if (argBool(a, 99, "sort_keys", false) && v.isDict()) {
           auto d = std::make_shared<DictObj>(v.dictObj());
           std::sort(d->entries.begin(), d->entries.end(), [](auto& x, auto& y) { return x.first < y.first; });
           Value::dict(d).appendJson(out, indent, 0);
         } else {
           v.appendJson(out, indent, 0);
         }
       } catch (const JinjaError&) {
         throw;
       } catch (const std::exception& e) {
         if (v.isUndefined()) throwUndefined(v);
         typeError(e.what());
       }
       in.checkStringSize(out.size());
       return Value::string(std::move(out));
     }},
    {"replace",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       if (a.positional.size() < 2) typeError("replace filter needs old and new");
       return Value::string(
           replaceAll(in, v.toStr(), a.positional[0].toStr(), a.positional[1].toStr(), argInt(a, 2, "count", -1)));
     }},
    {"default d",
     [](Interpreter&, const std::string&, const Value& v, CallArgs& a) -> Value {
       const Value* dv = arg(a, 0, "default_value");
       bool boolean = argBool(a, 1, "boolean", false);
       if (v.isUndefined() || (boolean && !v.truthy())) return dv ? *dv : Value::string(std::string());
       return v;
     }},
    {"join",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       std::string sep = argStr(a, 0, "d");
       const Value* attr = arg(a, 1, "attribute");
       std::string out;
       bool first = true;
       for (const auto& item : iterate(v)) {
         if (!first) out += sep;
         first = false;
         (attr ? attrPath(in, item, attr->toStr()) : item).appendStr(out);
         in.checkStringSize(out.size());
       }
       return Value::string(std::move(out));
     }},
    {"sort",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       bool reverse = argBool(a, 0, "reverse", false);
       bool cs = argBool(a, 1, "case_sensitive", false);
       const Value* attr = arg(a, 2, "attribute");
       auto items = iterate(v);
       std::vector<std::pair<Value, Value>> keyed;
       for (auto& it : items) keyed.emplace_back(attr ? attrPath(in, it, attr->toStr()) : it, it);
       std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
         return reverse ? lessForSort(y.first, x.first, cs) : lessForSort(x.first, y.first, cs);
       });
       std::vector<Value> out;
       for (auto& k : keyed) out.push_back(k.second);
       return Value::list(std::move(out));
     }},
    {"dictsort",
     [](Interpreter&, const std::string&, const Value& v, CallArgs& a) -> Value {
       if (v.type() != Type::Dict) typeError("dictsort needs a mapping");
       bool cs = argBool(a, 0, "case_sensitive", false);
       std::string by = argStr(a, 1, "by", "key");
       bool reverse = argBool(a, 2, "reverse", false);
       Value items = itemsOf(v);
       std::vector<Value> out = items.listObj().items;
       size_t idx = by == "value" ? 1 : 0;
       std::stable_sort(out.begin(), out.end(), [&](const Value& x, const Value& y) {
         const Value& kx = x.listObj().items[idx];
         const Value& ky = y.listObj().items[idx];
         return reverse ? lessForSort(ky, kx, cs) : lessForSort(kx, ky, cs);
       });
       return Value::list(std::move(out));
     }},
    {"unique",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       bool cs = argBool(a, 0, "case_sensitive", false);
       const Value* attr = arg(a, 1, "attribute");
       std::vector<Value> out, seen;
       for (const auto& item : iterate(v)) {
         Value key = attr ? attrPath(in, item, attr->toStr()) : item;
         if (!cs && key.isString()) key = Value::string(py::lower(key.str()));
         bool dup = false;
         for (const auto& s : seen)
           if (pyEquals(s, key)) {
             dup = true;
             break;
           }
         if (dup) continue;
         seen.push_back(key);
         out.push_back(item);
       }
       return Value::list(std::move(out));
     }},
    {"min max",
     [](Interpreter& in, const std::string& n, const Value& v, CallArgs& a) -> Value {
       bool cs = argBool(a, 0, "case_sensitive", false);
       const Value* attr = arg(a, 1, "attribute");
       auto items = iterate(v);
       if (items.empty()) return Value::undefined("No aggregated item, sequence was empty.");
       size_t best = 0;
       for (size_t i = 1; i < items.size(); ++i) {
         Value ki = attr ? attrPath(in, items[i], attr->toStr()) : items[i];
         Value kb = attr ? attrPath(in, items[best], attr->toStr()) : items[best];
         if (n == "min" ? lessForSort(ki, kb, cs) : lessForSort(kb, ki, cs)) best = i;
       }
       return items[best];
     }},
    {"sum",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       const Value* attr = arg(a, 0, "attribute");
       Value total = a.get(1, "start") ? *a.get(1, "start") : Value::integer(0);
       for (const auto& item : iterate(v))
         total = pyBinary(in, BinOp::Add, total, attr ? attrPath(in, item, attr->toStr()) : item);
       return total;
     }},
    {"int",
     [](Interpreter&, const std::string&, const Value& v, CallArgs& a) -> Value {
       Value def = a.get(0, "default") ? *a.get(0, "default") : Value::integer(0);
       return toInt(v, def, argInt(a, 1, "base", 10));
     }},
    {"float",
     [](Interpreter&, const std::string&, const Value& v, CallArgs& a) -> Value {
       Value def = a.get(0, "default") ? *a.get(0, "default") : Value::real(0.0);
       return toFloat(v, def);
     }},
    {"round",
     [](Interpreter&, const std::string&, const Value& v, CallArgs& a) -> Value {
       return doRound(v, argInt(a, 0, "precision", 0), argStr(a, 1, "method", "common"));
     }},
    {"map",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       std::vector<Value> out;
       if (const Value* attr = a.get(99, "attribute")) {
         const Value* def = a.get(99, "default");
         for (const auto& item : iterate(v)) {
           Value x = attrPath(in, item, attr->toStr());
           out.push_back(x.isUndefined() && def ? *def : x);
         }
         return Value::list(std::move(out));
       }
       if (a.positional.empty()) typeError("map requires a filter argument");
       std::string filter = a.positional[0].toStr();
       CallArgs rest;
       rest.positional.assign(a.positional.begin() + 1, a.positional.end());
       rest.named = a.named;
       for (const auto& item : iterate(v)) {
         in.countIterations(1);
         CallArgs copy = rest;
         out.push_back(in.applyFilter(filter, item, copy));
       }
       return Value::list(std::move(out));
     }},
    {"select reject selectattr rejectattr",
     [](Interpreter& in, const std::string& n, const Value& v, CallArgs& a) -> Value {
       return selectOrReject(in, v, a, n.rfind("select", 0) == 0,
                             n.size() > 6 && n.compare(n.size() - 4, 4, "attr") == 0);
     }},
    {"indent",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       const Value* w = arg(a, 0, "width");
       std::string pad = !w              ? std::string(4, ' ')
                         : w->isString() ? w->str()
                                         : std::string(size_t(std::clamp<int64_t>(w->asInt(), 0, 256)), ' ');
       std::string s = v.toStr();
       std::string out = indentText(s, pad, argBool(a, 1, "first", false), argBool(a, 2, "blank", false));
       in.checkStringSize(out.size());
       return Value::string(std::move(out));
     }},
    {"format",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       std::vector<Value> items = a.positional;
       auto t = std::make_shared<ListObj>();
       t->tuple = true;
       t->items = std::move(items);
       return pyBinary(in, BinOp::Mod, Value::string(v.toStr()), Value::list(std::move(t)));
     }},
    {"attr",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       return in.getAttr(v, argStr(a, 0, "n"));
     }},
    {"batch",
     [](Interpreter&, const std::string&, const Value& v, CallArgs& a) -> Value {
       int64_t size = std::max<int64_t>(1, argInt(a, 0, "linecount", 1));
       std::vector<Value> out, cur;
       for (const auto& item : iterate(v)) {
         cur.push_back(item);
         if (int64_t(cur.size()) == size) {
           out.push_back(Value::list(std::move(cur)));
           cur.clear();
         }
       }
       if (!cur.empty()) {
         if (const Value* fill = arg(a, 1, "fill_with"))
           while (int64_t(cur.size()) < size) cur.push_back(*fill);
         out.push_back(Value::list(std::move(cur)));
       }
       return Value::list(std::move(out));
     }},
    {"center",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       int64_t w = argInt(a, 0, "width", 80);
       std::string s = v.toStr();
       int64_t len = py::length(s);
       if (w <= len) return Value::string(s);
       in.checkStringSize(size_t(w - len) + s.size()); // a width over the output limit is refused, not cut
       int64_t total = w - len;
       int64_t left = total / 2 + (total & w & 1);
       return Value::string(std::string(size_t(left), ' ') + s + std::string(size_t(total - left), ' '));
     }},
};

// The filters that read only their operand, as OperandEntry rows.
const OperandEntry<Value> kOperandFilters[] = {
    {"length count", [](const Value& v) -> Value { return Value::integer(pyLength(v)); }},
    {"string", [](const Value& v) -> Value { return Value::string(v.toStr()); }},
    {"safe forceescape_off", [](const Value& v) -> Value { return v; }},
    {"e escape forceescape",
     [](const Value& v) -> Value { return Value::string(htmlEscape(v.toStr(), HtmlEscapeStyle::MarkupSafe)); }},
    {"upper", [](const Value& v) -> Value { return Value::string(py::upper(v.toStr())); }},
    {"lower", [](const Value& v) -> Value { return Value::string(py::lower(v.toStr())); }},
    {"capitalize", [](const Value& v) -> Value { return Value::string(py::capitalize(v.toStr())); }},
    {"title", [](const Value& v) -> Value { return Value::string(py::jinjaTitle(v.toStr())); }},
    {"items",
     [](const Value& v) -> Value {
       if (v.isUndefined()) return Value::list(std::vector<Value>{});
       if (v.type() != Type::Dict) typeError("Can only get item pairs from a mapping.");
       return itemsOf(v);
     }},
    {"list", [](const Value& v) -> Value { return Value::list(iterate(v)); }},
    {"first",
     [](const Value& v) -> Value {
       if (v.isList())
         return v.listObj().items.empty() ? Value::undefined("No first item, sequence was empty.")
                                          : v.listObj().items.front();
       auto items = iterate(v);
       return items.empty() ? Value::undefined("No first item, sequence was empty.") : items.front();
     }},
    {"last",
     [](const Value& v) -> Value {
       if (v.isList())
         return v.listObj().items.empty() ? Value::undefined("No last item, sequence was empty.")
                                          : v.listObj().items.back();
       auto items = iterate(v);
       return items.empty() ? Value::undefined("No last item, sequence was empty.") : items.back();
     }},
    {"reverse",
     [](const Value& v) -> Value {
       if (v.isString()) {
         auto off = py::codePointOffsets(v.str());
         std::string r;
         for (size_t i = off.size() - 1; i-- > 0;) r.append(v.str(), off[i], off[i + 1] - off[i]);
         return Value::string(std::move(r));
       }
       auto items = iterate(v);
       std::reverse(items.begin(), items.end());
       return Value::list(std::move(items));
     }},
    {"abs",
     [](const Value& v) -> Value {
       if (v.type() == Type::Float) return Value::real(std::fabs(v.asFloat()));
       if (v.isNumber()) return Value::integer(v.asInt() < 0 ? -v.asInt() : v.asInt());
       typeError("bad operand type for abs(): '" + v.typeName() + "'");
     }},
    {"wordcount",
     [](const Value& v) -> Value { return Value::integer(int64_t(splitWhitespace(v.toStr(), -1).size())); }},
};

} // namespace

Value filterValue(Interpreter& in, const std::string& name, const Value& v, CallArgs& a) {
  static const auto operandOnly = byName<Value (*)(const Value&)>(kOperandFilters);
  if (auto f = operandOnly.find(name); f != operandOnly.end()) return f->second(v);
  static const auto table = byName<FilterFn>(kFilters);
  auto it = table.find(name);
  if (it == table.end()) throw JinjaError("TemplateAssertionError", "No filter named '" + name + "'.");
  return it->second(in, name, v, a);
}

} // namespace maskscope::jinja
