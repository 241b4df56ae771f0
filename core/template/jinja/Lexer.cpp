// The Jinja lexer: data between tags, and expression tokens inside {{ }} and {% %}.
// Whitespace handling mirrors jinja2.lexer.Lexer.tokeniter for trim_blocks/lstrip_blocks.
#include "core/template/jinja/Lexer.h"

#include "core/template/jinja/PyString.h"
#include "core/util/Utf8.h"

#include <cstring>

namespace maskscope::jinja {

std::string normalizeSource(const std::string& source) {
  std::string s;
  s.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    char c = source[i];
    if (c == '\r') {
      s.push_back('\n');
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      s.push_back(c);
    }
  }
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

namespace {

class Lexer {
public:
  Lexer(const std::string& src, const LexOptions& o) : s_(src), opt_(o) {}

  std::vector<Token> run() {
    size_t pos = 0;
    const size_t n = s_.size();
    while (pos < n) {
      size_t k = findTagStart(pos);
      if (k == std::string::npos) {
        emitData(pos, n);
        break;
      }
      char kind = s_[k + 1]; // '{', '%' or '#'
      char marker = k + 2 < n ? s_[k + 2] : 0;
      size_t dataEnd = k;
      if (marker == '-') {
        dataEnd = rstripEnd(pos, k);
      } else if (marker != '+' && opt_.lstripBlocks && (kind == '%' || kind == '#')) {
        dataEnd = lstripEnd(pos, k);
      }
      emitData(pos, dataEnd);
      size_t inner = k + 2 + ((marker == '-' || marker == '+') ? 1 : 0);
      if (kind == '#') {
        pos = lexComment(k, inner);
      } else if (kind == '{') {
        push(Tok::VarBegin, k);
        pos = lexTag(inner, false);
      } else {
        push(Tok::BlockBegin, k);
        pos = lexTag(inner, true);
        pos = maybeRaw(pos);
      }
    }
    push(Tok::Eof, uint32_t(n));
    return std::move(out_);
  }

private:
  [[noreturn]] void fail(const std::string& msg, size_t pos) { throw LexError{msg, uint32_t(pos)}; }

  void push(Tok k, size_t pos, std::string text = {}) {
    Token t;
    t.kind = k;
    t.pos = uint32_t(pos);
    t.text = std::move(text);
    out_.push_back(std::move(t));
  }

  size_t findTagStart(size_t from) const {
    while (true) {
      size_t k = s_.find('{', from);
      if (k == std::string::npos || k + 1 >= s_.size()) return std::string::npos;
      char c = s_[k + 1];
      if (c == '{' || c == '%' || c == '#') return k;
      from = k + 1;
    }
  }

  void emitData(size_t b, size_t e) {
    if (e > b) push(Tok::Data, b, s_.substr(b, e - b));
  }

  // `{%-`: strip all trailing whitespace (Python str.rstrip) of the data before the tag.
  size_t rstripEnd(size_t b, size_t e) const {
    std::string_view v(s_.data() + b, e - b);
    return b + py::strip(v, nullptr, false, true).size();
  }

  // lstrip_blocks: spaces/tabs between the start of the line and a block tag go away.
  size_t lstripEnd(size_t b, size_t e) const {
    size_t i = e;
    while (i > b && (s_[i - 1] == ' ' || s_[i - 1] == '\t')) --i;
    bool atLineStart = (i == 0) || s_[i - 1] == '\n';
    // jinja strips only when the whitespace run starts a line: after a newline inside this data,
    // or at the data's start when the previous token ended a line.
    if (atLineStart) return i;
    return e;
  }

  size_t skipWhitespace(size_t p) const {
    while (p < s_.size()) {
      size_t q = p;
      char32_t c = utf8::decode(s_, q);
      if (!py::isSpace(c)) break;
      p = q;
    }
    return p;
  }

  size_t lexComment(size_t start, size_t inner) {
    size_t e = s_.find("#}", inner);
    if (e == std::string::npos) fail("missing end of comment tag", start);
    size_t after = e + 2;
    if (e > inner && s_[e - 1] == '-')
      after = skipWhitespace(after);
    else if (e > inner && s_[e - 1] == '+') {
    } else if (opt_.trimBlocks && after < s_.size() && s_[after] == '\n')
      ++after;
    return after;
  }

  // Tokens inside a tag up to its end marker; returns the position after the tag.
  size_t lexTag(size_t p, bool block) {
    const char endc = block ? '%' : '}';
    int depth = 0;
    const size_t n = s_.size();
    while (true) {
      while (p < n && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\n' || s_[p] == '\r')) ++p;
      if (p >= n)
        fail(block ? "unexpected end of template, expected '%}'" : "unexpected end of template, expected '}}'", p);
      if (depth == 0) {
        // end markers: "-%}", "+%}", "%}" / "-}}", "}}"
        if ((s_[p] == '-' || s_[p] == '+') && p + 2 < n && s_[p + 1] == endc && s_[p + 2] == '}' &&
            (block || s_[p] == '-')) {
          push(block ? Tok::BlockEnd : Tok::VarEnd, p);
          size_t after = p + 3;
          if (s_[p] == '-') return skipWhitespace(after);
          return after; // '+': no trim
        }
        if (s_[p] == endc && p + 1 < n && s_[p + 1] == '}') {
          push(block ? Tok::BlockEnd : Tok::VarEnd, p);
          size_t after = p + 2;
          if (block && opt_.trimBlocks && after < n && s_[after] == '\n') ++after;
          return after;
        }
      }
      char c = s_[p];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t b = p;
        while (p < n && (std::isalnum(static_cast<unsigned char>(s_[p])) || s_[p] == '_')) ++p;
        push(Tok::Name, b, s_.substr(b, p - b));
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c))) {
        p = lexNumber(p);
        continue;
      }
      if (c == '\'' || c == '"') {
        p = lexString(p);
        continue;
      }
      static const char* const ops2[] = {"//", "**", "==", "!=", "<=", ">="};
      bool matched = false;
      for (const char* op : ops2) {
        if (p + 1 < n && s_[p] == op[0] && s_[p + 1] == op[1]) {
          push(Tok::Op, p, op);
          p += 2;
          matched = true;
          break;
        }
      }
      if (matched) continue;
      if (std::strchr("+-*/%~<>=()[]{},.:|;", c)) {
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') {
          if (depth == 0) fail(std::string("unexpected '") + c + "'", p);
          --depth;
        }
        push(Tok::Op, p, std::string(1, c));
        ++p;
        continue;
      }
      fail(std::string("unexpected char '") + c + "'", p);
    }
  }

  size_t lexNumber(size_t p) {
    size_t b = p;
    const size_t n = s_.size();
    auto digits = [&] {
      while (p < n && (std::isdigit(static_cast<unsigned char>(s_[p])) ||
                       (s_[p] == '_' && p + 1 < n && std::isdigit(static_cast<unsigned char>(s_[p + 1])))))
        ++p;
    };
    digits();
    bool isFloat = false;
    if (p + 1 < n && s_[p] == '.' && std::isdigit(static_cast<unsigned char>(s_[p + 1]))) {
      isFloat = true;
      ++p;
      digits();
    }
    if (p < n && (s_[p] == 'e' || s_[p] == 'E')) {
      size_t q = p + 1;
      if (q < n && (s_[q] == '+' || s_[q] == '-')) ++q;
      if (q < n && std::isdigit(static_cast<unsigned char>(s_[q]))) {
        isFloat = true;
        p = q;
        digits();
      }
    }
    std::string text;
    for (size_t i = b; i < p; ++i)
      if (s_[i] != '_') text.push_back(s_[i]);
    Token t;
    t.pos = uint32_t(b);
    t.text = text;
    if (isFloat) {
      t.kind = Tok::Float;
      t.fval = std::strtod(text.c_str(), nullptr);
    } else {
      t.kind = Tok::Int;
      errno = 0;
      long long v = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == ERANGE) fail("integer literal too large", b);
      t.ival = v;
    }
    out_.push_back(std::move(t));
    return p;
  }

  // Python "unicode-escape" decoding of the literal's body, as jinja2 does.
  size_t lexString(size_t p) {
    const char q = s_[p];
    size_t b = p++;
    std::string v;
    const size_t n = s_.size();
    while (true) {
      if (p >= n) fail("unexpected end of string", b);
      char c = s_[p];
      if (c == q) {
        ++p;
        break;
      }
      if (c != '\\') {
        v.push_back(c);
        ++p;
        continue;
      }
      if (p + 1 >= n) fail("unexpected end of string", b);
      char e = s_[p + 1];
      p += 2;
      auto hex = [&](int count) -> bool {
        if (p + count > n) return false;
        uint32_t cp = 0;
        for (int i = 0; i < count; ++i) {
          char h = s_[p + i];
          int d = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                  : (h >= 'a' && h <= 'f')                    ? h - 'a' + 10
                  : (h >= 'A' && h <= 'F')                    ? h - 'A' + 10
                                                              : -1;
          if (d < 0) return false;
          cp = cp * 16 + uint32_t(d);
        }
        if (cp > 0x10FFFF) return false;
        utf8::append(v, cp);
        p += count;
        return true;
      };
      switch (e) {
      case '\n':
        break; // line continuation
      case '\\':
        v.push_back('\\');
        break;
      case '\'':
        v.push_back('\'');
        break;
      case '"':
        v.push_back('"');
        break;
      case 'a':
        v.push_back('\a');
        break;
      case 'b':
        v.push_back('\b');
        break;
      case 'f':
        v.push_back('\f');
        break;
      case 'n':
        v.push_back('\n');
        break;
      case 'r':
        v.push_back('\r');
        break;
      case 't':
        v.push_back('\t');
        break;
      case 'v':
        v.push_back('\v');
        break;
      case 'x':
        if (!hex(2)) fail("truncated \\xXX escape", p);
        break;
      case 'u':
        if (!hex(4)) fail("truncated \\uXXXX escape", p);
        break;
      case 'U':
        if (!hex(8)) fail("truncated \\UXXXXXXXX escape", p);
        break;
      default:
        if (e >= '0' && e <= '7') {
          uint32_t cp = uint32_t(e - '0');
          for (int i = 0; i < 2 && p < n && s_[p] >= '0' && s_[p] <= '7'; ++i) cp = cp * 8 + uint32_t(s_[p++] - '0');
          utf8::append(v, cp);
        } else {
          v.push_back('\\');
          v.push_back(e);
        }
      }
    }
    push(Tok::String, b, std::move(v));
    return p;
  }

  // After "{% raw %}", everything up to "{% endraw %}" is data.
  size_t maybeRaw(size_t pos) {
    size_t m = out_.size();
    if (m < 3 || out_[m - 1].kind != Tok::BlockEnd || out_[m - 2].kind != Tok::Name || out_[m - 2].text != "raw" ||
        out_[m - 3].kind != Tok::BlockBegin)
      return pos;
    uint32_t rawStart = out_[m - 3].pos;
    out_.resize(m - 3);
    size_t from = pos;
    while (true) {
      size_t k = s_.find("{%", from);
      if (k == std::string::npos) fail("missing endraw", rawStart);
      size_t p = k + 2;
      bool stripBefore = p < s_.size() && s_[p] == '-';
      if (p < s_.size() && (s_[p] == '-' || s_[p] == '+')) ++p;
      while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\n')) ++p;
      if (s_.compare(p, 6, "endraw") != 0) {
        from = k + 2;
        continue;
      }
      p += 6;
      while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\n')) ++p;
      bool stripAfter = false;
      if (p < s_.size() && (s_[p] == '-' || s_[p] == '+')) {
        stripAfter = s_[p] == '-';
        ++p;
      }
      if (s_.compare(p, 2, "%}") != 0) {
        from = k + 2;
        continue;
      }
      size_t dataEnd = stripBefore ? rstripEnd(pos, k) : (opt_.lstripBlocks ? lstripEnd(pos, k) : k);
      emitData(pos, dataEnd);
      p += 2;
      if (stripAfter)
        p = skipWhitespace(p);
      else if (opt_.trimBlocks && p < s_.size() && s_[p] == '\n')
        ++p;
      return p;
    }
  }

  const std::string& s_;
  LexOptions opt_;
  std::vector<Token> out_;
};

} // namespace

std::vector<Token> lex(const std::string& normalizedSource, const LexOptions& options) {
  return Lexer(normalizedSource, options).run();
}

} // namespace maskscope::jinja
