// Plain scalar resolution (see YamlScalars.h): PyYAML's implicit resolvers (resolver.py, YAML 1.1,
// tried in its order: bool, float, int, ...) and constructors (constructor.py: underscores
// dropped, 0b / 0x / leading-0 octal / base-60 ints), plus OmegaConf's extra float rule
// (omegaconf/_utils.py get_yaml_loader), which is tried after PyYAML's. Hand-written matchers
// instead of std::regex: libstdc++'s regex recurses per character.
#include "core/yaml/YamlScalars.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace maskscope::yaml {

namespace {

using Json = nlohmann::ordered_json;

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// A cursor over the scalar text for the little regular languages below.
struct Cursor {
  std::string_view s;
  size_t i = 0;
  bool end() const { return i >= s.size(); }
  bool eat(char c) {
    if (!end() && s[i] == c) return ++i, true;
    return false;
  }
  bool eatSign() { return eat('-') || eat('+'); }
  // [first][rest]*: one char accepted by first, then any run accepted by rest
  template <class F, class R> bool run(F first, R rest) {
    if (end() || !first(s[i])) return false;
    ++i;
    while (!end() && rest(s[i])) ++i;
    return true;
  }
  template <class R> void many(R rest) {
    while (!end() && rest(s[i])) ++i;
  }
};

auto digitOrUnderscore = [](char c) { return isDigit(c) || c == '_'; };

// (?::[0-5]?[0-9])+ : one or more base-60 groups. What may follow a group is ':' , '.' or the end,
// never a digit, so a group is ':' and one digit, or two digits of which the first is 0-5.
bool sexagesimalGroups(Cursor& c) {
  int groups = 0;
  while (!c.end() && c.s[c.i] == ':') {
    size_t n = 0;
    while (c.i + 1 + n < c.s.size() && isDigit(c.s[c.i + 1 + n])) ++n;
    if (n == 1 || (n == 2 && c.s[c.i + 1] <= '5'))
      c.i += 1 + n;
    else
      return false;
    ++groups;
  }
  return groups > 0;
}

bool optionalExponent(Cursor& c, bool signOptional) {
  if (c.end() || (c.s[c.i] != 'e' && c.s[c.i] != 'E')) return true;
  ++c.i;
  if (!c.eatSign() && !signOptional) return false;
  return c.run(isDigit, isDigit);
}

bool matchInt(std::string_view s) {
  auto all = [&](Cursor c, auto pred) {
    c.many(pred);
    return c.end();
  };
  Cursor c{s};
  c.eatSign();
  const size_t start = c.i;
  if (s.substr(start).starts_with("0b") && s.size() > start + 2)
    if (all(Cursor{s, start + 2}, [](char ch) { return ch == '0' || ch == '1' || ch == '_'; })) return true;
  if (s.substr(start).starts_with("0x") && s.size() > start + 2)
    if (all(Cursor{s, start + 2}, [](char ch) { return isHex(ch) || ch == '_'; })) return true;
  if (start < s.size() && s[start] == '0') {
    if (s.size() == start + 1) return true;
    if (all(Cursor{s, start + 1}, [](char ch) { return (ch >= '0' && ch <= '7') || ch == '_'; })) return true;
  }
  Cursor d{s, start};
  if (!d.run([](char ch) { return ch >= '1' && ch <= '9'; }, digitOrUnderscore)) return false;
  if (d.end()) return true;
  return sexagesimalGroups(d) && d.end();
}

bool matchFloat11(std::string_view s) {
  Cursor a{s}; // [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?
  a.eatSign();
  if (a.run(isDigit, digitOrUnderscore) && a.eat('.')) {
    a.many(digitOrUnderscore);
    if (optionalExponent(a, false) && a.end()) return true;
  }
  Cursor b{s}; // \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
  if (b.eat('.') && b.run(isDigit, digitOrUnderscore) && optionalExponent(b, false) && b.end()) return true;
  Cursor x{s}; // [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
  x.eatSign();
  if (x.run(isDigit, digitOrUnderscore) && sexagesimalGroups(x) && x.eat('.')) {
    x.many(digitOrUnderscore);
    if (x.end()) return true;
  }
  Cursor inf{s};
  inf.eatSign();
  const auto r = s.substr(inf.i);
  if (r == ".inf" || r == ".Inf" || r == ".INF") return true;
  return s == ".nan" || s == ".NaN" || s == ".NAN";
}

bool matchFloatOmega(std::string_view s) {
  Cursor a{s}; // [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
  a.eatSign();
  if (a.run(isDigit, digitOrUnderscore) && a.eat('.')) {
    a.many(digitOrUnderscore);
    if (optionalExponent(a, true) && a.end()) return true;
  }
  Cursor e{s}; // [-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
  e.eatSign();
  if (e.run(isDigit, digitOrUnderscore) && !e.end() && (e.s[e.i] == 'e' || e.s[e.i] == 'E') &&
      optionalExponent(e, true) && e.end())
    return true;
  Cursor b{s}; // \.[0-9_]+(?:[eE][-+][0-9]+)?
  if (b.eat('.') && b.run(digitOrUnderscore, digitOrUnderscore) && optionalExponent(b, false) && b.end()) return true;
  return matchFloat11(s); // the sexagesimal, inf and nan alternatives are PyYAML's
}

std::string withoutUnderscores(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_') out += c;
  return out;
}

// construct_yaml_int; nullopt when the value does not fit in int64 (Python would keep a big int).
std::optional<int64_t> constructInt(std::string_view text) {
  std::string v = withoutUnderscores(text);
  int sign = 1;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    if (v[0] == '-') sign = -1;
    v.erase(0, 1);
  }
  auto parse = [&](std::string_view digits, int base) -> std::optional<int64_t> {
    if (digits.empty()) return std::nullopt;
    int64_t n = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n, base);
    if (ec != std::errc() || p != digits.data() + digits.size()) return std::nullopt;
    return sign * n;
  };
  if (v == "0") return 0;
  if (v.starts_with("0b")) return parse(std::string_view(v).substr(2), 2);
  if (v.starts_with("0x")) return parse(std::string_view(v).substr(2), 16);
  if (v.find(':') != std::string::npos) {
    int64_t value = 0, base = 1;
    bool baseOverflow = false;
    std::vector<std::string_view> parts;
    std::string_view rest = v;
    for (size_t k; (k = rest.find(':')) != std::string_view::npos; rest = rest.substr(k + 1))
      parts.push_back(rest.substr(0, k));
    parts.push_back(rest);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      int64_t d = 0, term = 0;
      std::from_chars(it->data(), it->data() + it->size(), d);
      if (d != 0 && (baseOverflow || __builtin_mul_overflow(d, base, &term))) return std::nullopt;
      if (__builtin_add_overflow(value, term, &value)) return std::nullopt;
      if (__builtin_mul_overflow(base, int64_t(60), &base)) baseOverflow = true;
    }
    return sign * value;
  }
  if (v[0] == '0') return parse(std::string_view(v).substr(1), 8);
  return parse(v, 10);
}

double constructFloat(std::string_view text) {
  std::string v = withoutUnderscores(text);
  for (auto& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
  double sign = 1;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    if (v[0] == '-') sign = -1;
    v.erase(0, 1);
  }
  if (v == ".inf") return sign * std::numeric_limits<double>::infinity();
  if (v == ".nan") return std::numeric_limits<double>::quiet_NaN();
  if (v.find(':') != std::string::npos) {
    double value = 0, base = 1;
    std::vector<std::string> parts;
    size_t from = 0;
    for (size_t k; (k = v.find(':', from)) != std::string::npos; from = k + 1)
      parts.push_back(v.substr(from, k - from));
    parts.push_back(v.substr(from));
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      value += std::strtod(it->c_str(), nullptr) * base;
      base *= 60;
    }
    return sign * value;
  }
  return sign * std::strtod(v.c_str(), nullptr); // Python's float(): "1.", ".5", "1e+5"
}

} // namespace

Json resolvePlainScalar(std::string_view s, Dialect dialect) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  static constexpr std::string_view kTrue[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static constexpr std::string_view kFalse[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (auto t : kTrue)
    if (s == t) return true;
  for (auto f : kFalse)
    if (s == f) return false;
  if (s.size() > 4096) return std::string(s); // no number is that long; keeps the matchers linear and cheap
  if (matchFloat11(s)) return constructFloat(s);
  if (matchInt(s)) {
    if (auto n = constructInt(s)) return *n;
    return std::string(s);
  }
  if (dialect == Dialect::OmegaConf && matchFloatOmega(s)) return constructFloat(s);
  return std::string(s);
}

} // namespace maskscope::yaml
