// Python's str methods in the sandbox (StringMethods.h). Arguments in code points where Python counts
// code points (find, start/end ranges); every result that can grow is checked against the output limit.
#include "core/template/jinja/StringMethods.h"
#include "core/template/jinja/BuiltinSupport.h"
#include "core/template/jinja/Operators.h"
#include "core/template/jinja/PyString.h"
#include "core/util/Utf8.h"

#include <algorithm>

namespace maskscope::jinja {

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

namespace {

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

// The str methods that read only the string (no arguments), as OperandEntry rows.
const OperandEntry<std::string> kStringFunctions[] = {
    {"upper", [](const std::string& s) { return Value::string(py::upper(s)); }},
    {"lower", [](const std::string& s) { return Value::string(py::lower(s)); }},
    {"title", [](const std::string& s) { return Value::string(py::pyTitle(s)); }},
    {"capitalize", [](const std::string& s) { return Value::string(py::capitalize(s)); }},
    {"isdigit isnumeric isdecimal",
     [](const std::string& s) {
       return Value::boolean(allCodePoints(s, [](char32_t c) { return c >= '0' && c <= '9'; }));
     }},
    {"isspace",
     [](const std::string& s) { return Value::boolean(allCodePoints(s, [](char32_t c) { return py::isSpace(c); })); }},
    {"isalpha",
     [](const std::string& s) {
       return Value::boolean(
           allCodePoints(s, [](char32_t c) { return (c < 0x80 && std::isalpha(int(c))) || c >= 0xC0; }));
     }},
    {"isalnum",
     [](const std::string& s) {
       return Value::boolean(
           allCodePoints(s, [](char32_t c) { return (c < 0x80 && std::isalnum(int(c))) || c >= 0xC0; }));
     }},
    {"islower", [](const std::string& s) { return Value::boolean(py::lower(s) == s && py::upper(s) != s); }},
    {"isupper", [](const std::string& s) { return Value::boolean(py::upper(s) == s && py::lower(s) != s); }},
};

const std::unordered_map<std::string, StringMethodFn>& stringMethods() {
  static const auto table = byName<StringMethodFn>(kStringMethods);
  return table;
}

const std::unordered_map<std::string, Value (*)(const std::string&)>& stringFunctions() {
  static const auto table = byName<Value (*)(const std::string&)>(kStringFunctions);
  return table;
}

} // namespace

bool stringMethod(Interpreter& in, const std::string& s, const std::string& name, CallArgs& a, Value& r) {
  if (auto f = stringFunctions().find(name); f != stringFunctions().end()) {
    r = f->second(s);
    return true;
  }
  auto it = stringMethods().find(name);
  if (it == stringMethods().end()) return false;
  return it->second(in, s, name, a, r);
}

bool isStringMethod(const std::string& n) { return stringFunctions().count(n) > 0 || stringMethods().count(n) > 0; }

} // namespace maskscope::jinja
