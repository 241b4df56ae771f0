// Python operator semantics for template values: ==, <, in, + - * / // % ** ~, len() and iter().
#include "core/template/jinja/Operators.h"
#include "core/template/jinja/PyString.h"

#include <cmath>
#include <limits>

namespace maskscope::jinja {

namespace {

bool isIntLike(const Value& v) { return v.type() == Type::Int || v.type() == Type::Bool; }

[[noreturn]] void typeError(const std::string& msg) { throw JinjaError("TypeError", msg); }

std::string opName(BinOp op) {
  switch (op) {
  case BinOp::Add:
    return "+";
  case BinOp::Sub:
    return "-";
  case BinOp::Mul:
    return "*";
  case BinOp::Div:
    return "/";
  case BinOp::FloorDiv:
    return "//";
  case BinOp::Mod:
    return "%";
  case BinOp::Pow:
    return "**";
  case BinOp::Concat:
    return "~";
  }
  return "?";
}

[[noreturn]] void unsupported(BinOp op, const Value& a, const Value& b) {
  if (op == BinOp::Add && a.isString()) typeError("can only concatenate str (not \"" + b.typeName() + "\") to str");
  if (op == BinOp::Add && a.isList())
    typeError("can only concatenate " + a.typeName() + " (not \"" + b.typeName() + "\") to " + a.typeName());
  typeError("unsupported operand type(s) for " + opName(op) + ": '" + a.typeName() + "' and '" + b.typeName() + "'");
}

Value repeat(Interpreter& in, const Value& seq, int64_t n) {
  if (n <= 0) return seq.isString() ? Value::string(std::string()) : Value::list(std::vector<Value>{});
  if (seq.isString()) {
    const std::string& s = seq.str();
    in.checkStringSize(size_t(std::min<int64_t>(n, int64_t(1) << 40)) * s.size());
    std::string r;
    r.reserve(s.size() * size_t(n));
    for (int64_t i = 0; i < n; ++i) {
      r += s;
      if ((i & 4095) == 4095) in.tick();
    }
    return Value::string(std::move(r));
  }
  const auto& items = seq.listObj().items;
  if (!items.empty() && n > 1'000'000 / int64_t(items.size()))
    throw JinjaError("LimitError", "list repetition too large");
  auto l = std::make_shared<ListObj>();
  l->tuple = seq.listObj().tuple;
  for (int64_t i = 0; i < n; ++i) {
    l->items.insert(l->items.end(), items.begin(), items.end());
    in.tick();
  }
  return Value::list(std::move(l));
}

int64_t checked(bool overflow, int64_t v) {
  if (overflow) throw JinjaError("LimitError", "integer overflow (result exceeds 64 bits)");
  return v;
}

// printf-style "%s" % args, enough for templates ('%s', '%d', '%i', '%r', '%f', '%%').
Value percentFormat(const std::string& fmt, const Value& arg) {
  std::vector<Value> args;
  if (arg.isList() && arg.listObj().tuple)
    args = arg.listObj().items;
  else
    args.push_back(arg);
  std::string out;
  size_t ai = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    if (i + 1 >= fmt.size()) typeError("incomplete format");
    char c = fmt[++i];
    if (c == '%') {
      out.push_back('%');
      continue;
    }
    if (ai >= args.size()) typeError("not enough arguments for format string");
    const Value& a = args[ai++];
    if (c == 's')
      a.appendStr(out);
    else if (c == 'r')
      a.appendRepr(out);
    else if (c == 'd' || c == 'i') {
      if (!a.isNumber()) typeError("%d format: a real number is required, not " + a.typeName());
      out += std::to_string(a.type() == Type::Float ? floatToInt(a.asFloat()) : a.asInt());
    } else if (c == 'f') {
      if (!a.isNumber()) typeError("must be real number, not " + a.typeName());
      char b[64];
      std::snprintf(b, sizeof b, "%f", a.asFloat());
      out += b;
    } else
      typeError(std::string("unsupported format character '") + c + "'");
  }
  if (ai < args.size()) typeError("not all arguments converted during string formatting");
  return Value::string(std::move(out));
}

} // namespace

// depth: list/dict nesting so far; template-built values can nest far deeper than the C++ stack allows.
static bool pyEqualsAt(const Value& a, const Value& b, int depth) {
  if (depth > 200) throw JinjaError("RecursionError", "maximum recursion depth exceeded in comparison");
  if (a.isNumber() && b.isNumber()) {
    if (isIntLike(a) && isIntLike(b)) return a.asInt() == b.asInt();
    return a.asFloat() == b.asFloat();
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
  case Type::Undefined:
  case Type::None:
    return true;
  case Type::String:
    return a.str() == b.str();
  case Type::List: {
    const auto& x = a.listObj();
    const auto& y = b.listObj();
    if (x.tuple != y.tuple || x.items.size() != y.items.size()) return false;
    for (size_t i = 0; i < x.items.size(); ++i)
      if (!pyEqualsAt(x.items[i], y.items[i], depth + 1)) return false;
    return true;
  }
  case Type::Dict: {
    const auto& x = a.dictObj();
    const auto& y = b.dictObj();
    if (x.entries.size() != y.entries.size()) return false;
    for (const auto& [k, v] : x.entries) {
      const Value* o = y.find(k);
      if (!o || !pyEqualsAt(v, *o, depth + 1)) return false;
    }
    return true;
  }
  default:
    return a.object() == b.object();
  }
}

bool pyEquals(const Value& a, const Value& b) { return pyEqualsAt(a, b, 0); }

int pyCompare(const Value& a, const Value& b, const char* op) {
  if (a.isUndefined()) throwUndefined(a);
  if (b.isUndefined()) throwUndefined(b);
  if (a.isNumber() && b.isNumber()) {
    if (isIntLike(a) && isIntLike(b)) return a.asInt() < b.asInt() ? -1 : a.asInt() > b.asInt() ? 1 : 0;
    double x = a.asFloat(), y = b.asFloat();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.isString() && b.isString()) {
    int c = a.str().compare(b.str()); // UTF-8 byte order == code point order
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if (a.isList() && b.isList() && a.listObj().tuple == b.listObj().tuple) {
    const auto& x = a.listObj().items;
    const auto& y = b.listObj().items;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (pyEquals(x[i], y[i])) continue;
      return pyCompare(x[i], y[i], op);
    }
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  typeError(std::string("'") + op + "' not supported between instances of '" + a.typeName() + "' and '" + b.typeName() +
            "'");
}

bool pyContains(const Value& c, const Value& item) {
  switch (c.type()) {
  case Type::Undefined:
    return false;
  case Type::String:
    if (!item.isString()) typeError("'in <string>' requires string as left operand, not " + item.typeName());
    return c.str().find(item.str()) != std::string::npos;
  case Type::List:
    for (const auto& v : c.listObj().items)
      if (pyEquals(v, item)) return true;
    return false;
  case Type::Dict:
  case Type::Namespace:
    if (c.type() == Type::Namespace) typeError("argument of type 'Namespace' is not iterable");
    return item.isString() && c.dictObj().find(item.str()) != nullptr;
  default:
    typeError("argument of type '" + c.typeName() + "' is not iterable");
  }
}

std::vector<Value> iterate(const Value& v) {
  switch (v.type()) {
  case Type::Undefined:
    return {};
  case Type::List:
    return v.listObj().items;
  case Type::Dict: {
    std::vector<Value> keys;
    keys.reserve(v.dictObj().entries.size());
    for (const auto& e : v.dictObj().entries) keys.push_back(Value::string(e.first));
    return keys;
  }
  case Type::String: {
    std::vector<Value> chars;
    const std::string& s = v.str();
    auto off = py::codePointOffsets(s);
    chars.reserve(off.size());
    for (size_t i = 0; i + 1 < off.size(); ++i) chars.push_back(Value::string(s.substr(off[i], off[i + 1] - off[i])));
    return chars;
  }
  default:
    typeError("'" + v.typeName() + "' object is not iterable");
  }
}

int64_t pyLength(const Value& v) {
  switch (v.type()) {
  case Type::Undefined:
    return 0;
  case Type::String:
    return py::length(v.str());
  case Type::List:
    return int64_t(v.listObj().items.size());
  case Type::Dict:
    return int64_t(v.dictObj().entries.size());
  case Type::Loop:
    return int64_t(v.loopObj().items ? v.loopObj().items->size() : 0);
  default:
    typeError("object of type '" + v.typeName() + "' has no len()");
  }
}

// a + b: int (overflow-checked), float, str (in place when a is an unshared temporary), and
// list + list / tuple + tuple.
static Value pyAdd(Interpreter& in, const Value& a, const Value& b) {
  const bool ints = isIntLike(a) && isIntLike(b);
  const bool nums = a.isNumber() && b.isNumber();
  if (ints) {
    int64_t r = 0;
    bool o = __builtin_add_overflow(a.asInt(), b.asInt(), &r);
    return Value::integer(checked(o, r));
  }
  if (nums) return Value::real(a.asFloat() + b.asFloat());
  if (a.isString() && b.isString()) {
    in.checkStringSize(a.str().size() + b.str().size());
    if (a.object().use_count() == 1 && !a.object()->frozen) {
      // a is a temporary nobody else sees (the left side of a + b + c chain): append in place
      static_cast<StringObj*>(a.object().get())->value += b.str();
      return a;
    }
    std::string s;
    s.reserve(a.str().size() + b.str().size());
    s += a.str();
    s += b.str();
    return Value::string(std::move(s));
  }
  if (a.isList() && b.isList() && a.listObj().tuple == b.listObj().tuple) {
    auto l = std::make_shared<ListObj>();
    l->tuple = a.listObj().tuple;
    l->items = a.listObj().items;
    l->items.insert(l->items.end(), b.listObj().items.begin(), b.listObj().items.end());
    return Value::list(std::move(l));
  }
  unsupported(BinOp::Add, a, b);
}

Value pyBinary(Interpreter& in, BinOp op, const Value& a, const Value& b) {
  if (op == BinOp::Concat) {
    std::string s;
    a.appendStr(s);
    b.appendStr(s);
    in.checkStringSize(s.size());
    return Value::string(std::move(s));
  }
  if (a.isUndefined()) throwUndefined(a);
  if (b.isUndefined()) throwUndefined(b);
  const bool ints = isIntLike(a) && isIntLike(b);
  const bool nums = a.isNumber() && b.isNumber();
  switch (op) {
  case BinOp::Add:
    return pyAdd(in, a, b);
  case BinOp::Sub:
    if (ints) {
      int64_t r = 0;
      bool o = __builtin_sub_overflow(a.asInt(), b.asInt(), &r);
      return Value::integer(checked(o, r));
    }
    if (nums) return Value::real(a.asFloat() - b.asFloat());
    break;
  case BinOp::Mul:
    if (ints) {
      int64_t r = 0;
      bool o = __builtin_mul_overflow(a.asInt(), b.asInt(), &r);
      return Value::integer(checked(o, r));
    }
    if (nums) return Value::real(a.asFloat() * b.asFloat());
    if ((a.isString() || a.isList()) && isIntLike(b)) return repeat(in, a, b.asInt());
    if ((b.isString() || b.isList()) && isIntLike(a)) return repeat(in, b, a.asInt());
    break;
  case BinOp::Div:
    if (nums) {
      if (b.asFloat() == 0) throw JinjaError("ZeroDivisionError", "division by zero");
      return Value::real(a.asFloat() / b.asFloat());
    }
    break;
  case BinOp::FloorDiv:
    if (ints) {
      if (b.asInt() == 0) throw JinjaError("ZeroDivisionError", "integer division or modulo by zero");
      if (a.asInt() == std::numeric_limits<int64_t>::min() && b.asInt() == -1) checked(true, 0);
      int64_t q = a.asInt() / b.asInt();
      if ((a.asInt() % b.asInt() != 0) && ((a.asInt() < 0) != (b.asInt() < 0))) --q;
      return Value::integer(q);
    }
    if (nums) {
      if (b.asFloat() == 0) throw JinjaError("ZeroDivisionError", "float floor division by zero");
      return Value::real(std::floor(a.asFloat() / b.asFloat()));
    }
    break;
  case BinOp::Mod:
    if (ints) {
      if (b.asInt() == 0) throw JinjaError("ZeroDivisionError", "integer division or modulo by zero");
      if (b.asInt() == -1) return Value::integer(0);
      int64_t r = a.asInt() % b.asInt();
      if (r != 0 && ((r < 0) != (b.asInt() < 0))) r += b.asInt();
      return Value::integer(r);
    }
    if (nums) {
      if (b.asFloat() == 0) throw JinjaError("ZeroDivisionError", "float modulo");
      double r = std::fmod(a.asFloat(), b.asFloat());
      if (r != 0 && ((r < 0) != (b.asFloat() < 0))) r += b.asFloat();
      return Value::real(r);
    }
    if (a.isString()) return percentFormat(a.str(), b);
    break;
  case BinOp::Pow:
    if (ints && b.asInt() >= 0) {
      int64_t base = a.asInt(), e = b.asInt(), r = 1;
      while (e > 0) {
        if (e & 1) checked(__builtin_mul_overflow(r, base, &r), 0);
        e >>= 1;
        if (e) checked(__builtin_mul_overflow(base, base, &base), 0);
      }
      return Value::integer(r);
    }
    if (nums) return Value::real(std::pow(a.asFloat(), b.asFloat()));
    break;
  case BinOp::Concat:
    break;
  }
  unsupported(op, a, b);
}

} // namespace maskscope::jinja
