// jinja2's filters and tests, the str/dict/list methods templates call, and the globals transformers
// provides (range, namespace, dict, raise_exception, strftime_now). The immutable sandbox refuses
// every mutating method (list.append, dict.update, ...) with a SecurityError, as jinja2 does.
#include "core/template/jinja/Builtins.h"
#include "core/template/jinja/Operators.h"
#include "core/template/jinja/PyString.h"
#include "core/util/Utf8.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <unordered_map>

namespace maskscope::jinja {

namespace {

[[noreturn]] void typeError(const std::string& m) { throw JinjaError("TypeError", m); }

const Value* arg(CallArgs& a, size_t i, std::string_view name) { return a.get(i, name); }

std::string argStr(CallArgs& a, size_t i, std::string_view name, const std::string& def = {}) {
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

// ------------------------------------------------------------------ strftime

const char* const kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                               "July",    "August",   "September", "October", "November", "December"};
const char* const kDays[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

int dayOfWeek(int y, int m, int d) { // 0 = Sunday (Sakamoto)
  static const int t[] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
  if (m < 3) y -= 1;
  return (y + y / 4 - y / 100 + y / 400 + t[m - 1] + d) % 7;
}

int dayOfYear(int y, int m, int d) {
  static const int cum[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return cum[m - 1] + d + (leap && m > 2 ? 1 : 0);
}

std::string strftimeNow(const std::string& fmt, const std::optional<std::string>& now) {
  int Y, M, D, h = 0, mi = 0, s = 0;
  if (now) {
    if (std::sscanf(now->c_str(), "%d-%d-%d", &Y, &M, &D) != 3 || M < 1 || M > 12 || D < 1 || D > 31)
      throw JinjaError("ValueError", "--now must look like 2024-07-26, got '" + *now + "'");
    std::sscanf(now->c_str(), "%*d-%*d-%*d%*[T ]%d:%d:%d", &h, &mi, &s);
  } else {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    Y = tm.tm_year + 1900, M = tm.tm_mon + 1, D = tm.tm_mday, h = tm.tm_hour, mi = tm.tm_min, s = tm.tm_sec;
  }
  std::string out;
  char b[32];
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%' || i + 1 >= fmt.size()) {
      out.push_back(fmt[i]);
      continue;
    }
    char c = fmt[++i];
    int w = dayOfWeek(Y, M, D);
    switch (c) {
    case 'd':
      std::snprintf(b, sizeof b, "%02d", D);
      out += b;
      break;
    case 'e':
      std::snprintf(b, sizeof b, "%2d", D);
      out += b;
      break;
    case 'm':
      std::snprintf(b, sizeof b, "%02d", M);
      out += b;
      break;
    case 'Y':
      out += std::to_string(Y);
      break;
    case 'y':
      std::snprintf(b, sizeof b, "%02d", Y % 100);
      out += b;
      break;
    case 'B':
      out += kMonths[M - 1];
      break;
    case 'b':
    case 'h':
      out += std::string(kMonths[M - 1]).substr(0, 3);
      break;
    case 'A':
      out += kDays[w];
      break;
    case 'a':
      out += std::string(kDays[w]).substr(0, 3);
      break;
    case 'w':
      out += std::to_string(w);
      break;
    case 'u':
      out += std::to_string(w == 0 ? 7 : w);
      break;
    case 'j':
      std::snprintf(b, sizeof b, "%03d", dayOfYear(Y, M, D));
      out += b;
      break;
    case 'H':
      std::snprintf(b, sizeof b, "%02d", h);
      out += b;
      break;
    case 'I':
      std::snprintf(b, sizeof b, "%02d", h % 12 == 0 ? 12 : h % 12);
      out += b;
      break;
    case 'M':
      std::snprintf(b, sizeof b, "%02d", mi);
      out += b;
      break;
    case 'S':
      std::snprintf(b, sizeof b, "%02d", s);
      out += b;
      break;
    case 'p':
      out += h < 12 ? "AM" : "PM";
      break;
    case 'F':
      std::snprintf(b, sizeof b, "%04d-%02d-%02d", Y, M, D);
      out += b;
      break;
    case '%':
      out.push_back('%');
      break;
    default:
      out.push_back('%');
      out.push_back(c);
    }
  }
  return out;
}

// ------------------------------------------------------------------ string methods

std::vector<std::string> splitWhitespace(const std::string& s, int64_t maxsplit) {
  std::vector<std::string> parts;
  size_t p = 0;
  const size_t n = s.size();
  auto spaceAt = [&](size_t i, size_t& next) {
    size_t q = i;
    char32_t c = utf8::decode(s, q);
    next = q;
    return py::isSpace(c);
  };
  while (p < n) {
    size_t nx;
    while (p < n && spaceAt(p, nx)) p = nx;
    if (p >= n) break;
    if (maxsplit >= 0 && int64_t(parts.size()) == maxsplit) {
      std::string rest = s.substr(p);
      parts.push_back(std::string(py::strip(rest, nullptr, false, true)));
      break;
    }
    size_t b = p;
    while (p < n && !spaceAt(p, nx)) p = nx;
    parts.push_back(s.substr(b, p - b));
  }
  return parts;
}

std::vector<std::string> splitSep(const std::string& s, const std::string& sep, int64_t maxsplit) {
  if (sep.empty()) throw JinjaError("ValueError", "empty separator");
  std::vector<std::string> parts;
  size_t p = 0;
  while (true) {
    if (maxsplit >= 0 && int64_t(parts.size()) == maxsplit) break;
    size_t k = s.find(sep, p);
    if (k == std::string::npos) break;
    parts.push_back(s.substr(p, k - p));
    p = k + sep.size();
  }
  parts.push_back(s.substr(p));
  return parts;
}

std::vector<std::string> rsplitSep(const std::string& s, const std::string& sep, int64_t maxsplit) {
  if (sep.empty()) throw JinjaError("ValueError", "empty separator");
  std::vector<std::string> parts;
  size_t end = s.size();
  while (maxsplit < 0 || int64_t(parts.size()) < maxsplit) {
    if (end < sep.size()) break;
    size_t k = s.rfind(sep, end - sep.size());
    if (k == std::string::npos) break;
    parts.push_back(s.substr(k + sep.size(), end - k - sep.size()));
    end = k;
  }
  parts.push_back(s.substr(0, end));
  std::reverse(parts.begin(), parts.end());
  return parts;
}

std::string replaceAll(Interpreter& in, const std::string& s, const std::string& from, const std::string& to,
                       int64_t count) {
  std::string out;
  if (from.empty()) {
    // Python inserts `to` between every character and at both ends.
    auto off = py::codePointOffsets(s);
    int64_t done = 0;
    for (size_t i = 0; i + 1 < off.size(); ++i) {
      if (count < 0 || done < count) {
        out += to;
        ++done;
      }
      out.append(s, off[i], off[i + 1] - off[i]);
    }
    if (count < 0 || done < count) out += to;
    in.checkStringSize(out.size());
    return out;
  }
  size_t p = 0;
  int64_t done = 0;
  while (count < 0 || done < count) {
    size_t k = s.find(from, p);
    if (k == std::string::npos) break;
    out.append(s, p, k - p);
    out += to;
    p = k + from.size();
    ++done;
    in.checkStringSize(out.size());
  }
  out.append(s, p, std::string::npos);
  in.checkStringSize(out.size());
  return out;
}

// Python's start/end arguments in code points, mapped to a byte range of s.
void codePointRange(const std::string& s, CallArgs& a, size_t startIdx, size_t& b, size_t& e) {
  b = 0;
  e = s.size();
  const Value* st = a.get(startIdx, "start");
  const Value* en = a.get(startIdx + 1, "end");
  if ((!st || st->isNone()) && (!en || en->isNone())) return;
  auto off = py::codePointOffsets(s);
  int64_t n = int64_t(off.size()) - 1;
  auto norm = [&](const Value* v, int64_t def) {
    if (!v || v->isNone()) return def;
    int64_t x = v->asInt();
    if (x < 0) x = std::max<int64_t>(0, x + n);
    return std::min(x, n);
  };
  b = off[size_t(norm(st, 0))];
  e = off[size_t(norm(en, n))];
  if (e < b) e = b;
}

bool matchAffix(const std::string& s, const Value& affix, bool prefix) {
  auto one = [&](const std::string& a) {
    if (a.size() > s.size()) return false;
    return prefix ? s.compare(0, a.size(), a) == 0 : s.compare(s.size() - a.size(), a.size(), a) == 0;
  };
  if (affix.isString()) return one(affix.str());
  if (affix.isList() && affix.listObj().tuple) {
    for (const auto& v : affix.listObj().items) {
      if (!v.isString()) typeError("tuple for startswith must only contain str, not " + v.typeName());
      if (one(v.str())) return true;
    }
    return false;
  }
  typeError(std::string(prefix ? "startswith" : "endswith") + " first arg must be str or a tuple of str, not " +
            affix.typeName());
}

int64_t byteToCodePoint(const std::string& s, size_t byte) { return py::length(std::string_view(s).substr(0, byte)); }

// str.isdigit() and friends: true when s is non-empty and every code point satisfies pred.
template <class Pred> bool allCodePoints(const std::string& s, Pred pred) {
  if (s.empty()) return false;
  size_t p = 0;
  while (p < s.size())
    if (!pred(utf8::decode(s, p))) return false;
  return true;
}

// A name -> function map from table entries whose `names` list a function and its aliases,
// space-separated.
template <class Fn, class Entry, size_t N> std::unordered_map<std::string, Fn> byName(const Entry (&entries)[N]) {
  std::unordered_map<std::string, Fn> m;
  for (const Entry& e : entries) {
    std::string_view names = e.names;
    while (!names.empty()) {
      const size_t space = names.find(' ');
      m.emplace(std::string(names.substr(0, space)), e.fn);
      names = space == std::string_view::npos ? std::string_view() : names.substr(space + 1);
    }
  }
  return m;
}

// Python's str methods as the sandbox allows them, by name (aliases space-separated). Each sets r
// and returns true.
using StringMethodFn = bool (*)(Interpreter& in, const std::string& s, const std::string& name, CallArgs& a, Value& r);
struct StringMethodEntry {
  const char* names;
  StringMethodFn fn;
};
const StringMethodEntry kStringMethods[] = {
    {"strip lstrip rstrip",
     [](Interpreter&, const std::string& s, const std::string& name, CallArgs& a, Value& r) -> bool {
       const Value* c = arg(a, 0, "chars");
       std::string chars;
       const std::string* cp = nullptr;
       if (c && !c->isNone()) {
         chars = c->toStr();
         cp = &chars;
       }
       r = Value::string(std::string(py::strip(s, cp, name != "rstrip", name != "lstrip")));
       return true;
     }},
    {"split rsplit",
     [](Interpreter&, const std::string& s, const std::string& name, CallArgs& a, Value& r) -> bool {
       const Value* sep = arg(a, 0, "sep");
       int64_t maxsplit = argInt(a, 1, "maxsplit", -1);
       if (!sep || sep->isNone()) {
         if (name == "rsplit" && maxsplit >= 0) {
           // rare: rsplit on whitespace with a limit; split fully then rejoin the head
           auto all = splitWhitespace(s, -1);
           if (int64_t(all.size()) > maxsplit + 1) {
             size_t keep = all.size() - size_t(maxsplit);
             std::string head;
             // the head keeps its original inner whitespace: find the start of the first kept tail word
             size_t pos = s.size();
             for (size_t i = all.size(); i-- > keep;) pos = s.rfind(all[i], pos - 1);
             head = std::string(py::strip(std::string_view(s).substr(0, pos), nullptr, true, true));
             std::vector<std::string> parts{head};
             parts.insert(parts.end(), all.begin() + long(keep), all.end());
             r = strList(std::move(parts));
             return true;
           }
           r = strList(std::move(all));
           return true;
         }
         r = strList(splitWhitespace(s, maxsplit));
       } else {
         r = strList(name == "split" ? splitSep(s, sep->toStr(), maxsplit) : rsplitSep(s, sep->toStr(), maxsplit));
       }
       return true;
     }},
    {"splitlines",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs& a, Value& r) {
       std::vector<std::string> parts;
       bool keep = argBool(a, 0, "keepends", false);
       size_t b = 0;
       for (size_t i = 0; i < s.size(); ++i) {
         if (s[i] == '\n' || s[i] == '\r') {
           size_t e = i;
           if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
           parts.push_back(s.substr(b, (keep ? i + 1 : e) - b));
           b = i + 1;
         }
       }
       if (b < s.size()) parts.push_back(s.substr(b));
       r = strList(std::move(parts));
       return true;
     }},
    {"startswith endswith",
     [](Interpreter&, const std::string& s, const std::string& name, CallArgs& a, Value& r) {
       const Value* x = arg(a, 0, "prefix");
       if (!x) typeError(name + "() takes at least 1 argument (0 given)");
       size_t b, e;
       codePointRange(s, a, 1, b, e);
       r = Value::boolean(matchAffix(s.substr(b, e - b), *x, name == "startswith"));
       return true;
     }},
    {"replace",
     [](Interpreter& in, const std::string& s, const std::string&, CallArgs& a, Value& r) {
       if (a.positional.size() < 2) typeError("replace() takes at least 2 arguments");
       r = Value::string(
           replaceAll(in, s, a.positional[0].toStr(), a.positional[1].toStr(), argInt(a, 2, "count", -1)));
       return true;
     }},
    {"upper",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::string(py::upper(s));
       return true;
     }},
    {"lower",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::string(py::lower(s));
       return true;
     }},
    {"title",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::string(py::pyTitle(s));
       return true;
     }},
    {"capitalize",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::string(py::capitalize(s));
       return true;
     }},
    {"find rfind index rindex count",
     [](Interpreter&, const std::string& s, const std::string& name, CallArgs& a, Value& r) {
       const Value* x = arg(a, 0, "sub");
       if (!x || !x->isString()) typeError("must be str, not " + (x ? x->typeName() : std::string("nothing")));
       size_t b, e;
       codePointRange(s, a, 1, b, e);
       std::string hay = s.substr(b, e - b);
       const std::string& sub = x->str();
       if (name == "count") {
         int64_t c = 0;
         if (sub.empty())
           c = py::length(hay) + 1;
         else
           for (size_t p = hay.find(sub); p != std::string::npos; p = hay.find(sub, p + sub.size())) ++c;
         r = Value::integer(c);
         return true;
       }
       size_t k = (name == "find" || name == "index") ? hay.find(sub) : hay.rfind(sub);
       if (k == std::string::npos) {
         if (name == "index" || name == "rindex") throw JinjaError("ValueError", "substring not found");
         r = Value::integer(-1);
       } else {
         r = Value::integer(byteToCodePoint(s, b + k));
       }
       return true;
     }},
    {"join",
     [](Interpreter& in, const std::string& s, const std::string&, CallArgs& a, Value& r) {
       const Value* x = arg(a, 0, "iterable");
       if (!x) typeError("join() takes exactly one argument (0 given)");
       std::string out;
       bool first = true;
       for (const auto& v : iterate(*x)) {
         if (!v.isString()) typeError("sequence item: expected str instance, " + v.typeName() + " found");
         if (!first) out += s;
         first = false;
         out += v.str();
         in.checkStringSize(out.size());
       }
       r = Value::string(std::move(out));
       return true;
     }},
    {"isdigit isnumeric isdecimal",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::boolean(allCodePoints(s, [](char32_t c) { return c >= '0' && c <= '9'; }));
       return true;
     }},
    {"isspace",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::boolean(allCodePoints(s, [](char32_t c) { return py::isSpace(c); }));
       return true;
     }},
    {"isalpha",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::boolean(allCodePoints(s, [](char32_t c) { return (c < 0x80 && std::isalpha(int(c))) || c >= 0xC0; }));
       return true;
     }},
    {"isalnum",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::boolean(allCodePoints(s, [](char32_t c) { return (c < 0x80 && std::isalnum(int(c))) || c >= 0xC0; }));
       return true;
     }},
    {"islower",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::boolean(py::lower(s) == s && py::upper(s) != s);
       return true;
     }},
    {"isupper",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs&, Value& r) {
       r = Value::boolean(py::upper(s) == s && py::lower(s) != s);
       return true;
     }},
    {"zfill",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs& a, Value& r) {
       int64_t w = argInt(a, 0, "width", 0);
       int64_t len = py::length(s);
       std::string out = s;
       if (w > len) {
         size_t at = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
         out.insert(at, size_t(w - len), '0');
       }
       r = Value::string(std::move(out));
       return true;
     }},
    {"format",
     [](Interpreter&, const std::string& s, const std::string&, CallArgs& a, Value& r) {
       // str.format with {} / {0} / {name} fields (the sandbox allows it); no format specs.
       std::string out;
       size_t auto_i = 0;
       for (size_t i = 0; i < s.size(); ++i) {
         char c = s[i];
         if (c == '{' && i + 1 < s.size() && s[i + 1] == '{') {
           out.push_back('{');
           ++i;
           continue;
         }
         if (c == '}' && i + 1 < s.size() && s[i + 1] == '}') {
           out.push_back('}');
           ++i;
           continue;
         }
         if (c != '{') {
           out.push_back(c);
           continue;
         }
         size_t e = s.find('}', i);
         if (e == std::string::npos) throw JinjaError("ValueError", "Single '{' encountered in format string");
         std::string field = s.substr(i + 1, e - i - 1);
         const Value* v = nullptr;
         if (field.empty())
           v = auto_i < a.positional.size() ? &a.positional[auto_i++] : nullptr;
         else if (std::all_of(field.begin(), field.end(), ::isdigit)) {
           size_t k = std::stoul(field);
           v = k < a.positional.size() ? &a.positional[k] : nullptr;
         } else {
           for (const auto& nv : a.named)
             if (nv.first == field) v = &nv.second;
         }
         if (!v) throw JinjaError("IndexError", "Replacement index out of range for positional args tuple");
         v->appendStr(out);
         i = e;
       }
       r = Value::string(std::move(out));
       return true;
     }},
};

const std::unordered_map<std::string, StringMethodFn>& stringMethods() {
  static const auto table = byName<StringMethodFn>(kStringMethods);
  return table;
}

bool stringMethod(Interpreter& in, const std::string& s, const std::string& name, CallArgs& a, Value& r) {
  auto it = stringMethods().find(name);
  if (it == stringMethods().end()) return false;
  return it->second(in, s, name, a, r);
}

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

bool isStringMethod(const std::string& n) { return stringMethods().count(n) > 0; }

// ------------------------------------------------------------------ filters helpers

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

} // namespace

// ------------------------------------------------------------------ globals

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

// ------------------------------------------------------------------ methods

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

// ------------------------------------------------------------------ filters

namespace {

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
    {"length count",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value { return Value::integer(pyLength(v)); }},
    {"string",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value { return Value::string(v.toStr()); }},
    {"safe forceescape_off", [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value { return v; }},
    {"e escape forceescape",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       return Value::string(py::htmlEscape(v.toStr()));
     }},
    {"upper",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       return Value::string(py::upper(v.toStr()));
     }},
    {"lower",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       return Value::string(py::lower(v.toStr()));
     }},
    {"capitalize",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       return Value::string(py::capitalize(v.toStr()));
     }},
    {"title",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       return Value::string(py::jinjaTitle(v.toStr()));
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
    {"items",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       if (v.isUndefined()) return Value::list(std::vector<Value>{});
       if (v.type() != Type::Dict) typeError("Can only get item pairs from a mapping.");
       return itemsOf(v);
     }},
    {"list",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value { return Value::list(iterate(v)); }},
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
    {"first",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       if (v.isList())
         return v.listObj().items.empty() ? Value::undefined("No first item, sequence was empty.")
                                          : v.listObj().items.front();
       auto items = iterate(v);
       return items.empty() ? Value::undefined("No first item, sequence was empty.") : items.front();
     }},
    {"last",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       if (v.isList())
         return v.listObj().items.empty() ? Value::undefined("No last item, sequence was empty.")
                                          : v.listObj().items.back();
       auto items = iterate(v);
       return items.empty() ? Value::undefined("No last item, sequence was empty.") : items.back();
     }},
    {"reverse",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
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
    {"abs",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       if (v.type() == Type::Float) return Value::real(std::fabs(v.asFloat()));
       if (v.isNumber()) return Value::integer(v.asInt() < 0 ? -v.asInt() : v.asInt());
       typeError("bad operand type for abs(): '" + v.typeName() + "'");
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
    {"select",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       return selectOrReject(in, v, a, true, false);
     }},
    {"reject",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       return selectOrReject(in, v, a, false, false);
     }},
    {"selectattr",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       return selectOrReject(in, v, a, true, true);
     }},
    {"rejectattr",
     [](Interpreter& in, const std::string&, const Value& v, CallArgs& a) -> Value {
       return selectOrReject(in, v, a, false, true);
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
    {"wordcount",
     [](Interpreter&, const std::string&, const Value& v, CallArgs&) -> Value {
       return Value::integer(int64_t(splitWhitespace(v.toStr(), -1).size()));
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

} // namespace

Value filterValue(Interpreter& in, const std::string& name, const Value& v, CallArgs& a) {
  static const auto table = byName<FilterFn>(kFilters);
  auto it = table.find(name);
  if (it == table.end()) throw JinjaError("TemplateAssertionError", "No filter named '" + name + "'.");
  return it->second(in, name, v, a);
}

// ------------------------------------------------------------------ tests

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
