// Decoders. Invalid UTF-8 produced from bytes becomes U+FFFD, as Rust's from_utf8_lossy.
#include "core/tokenizer/hf/Decoders.h"

#include "core/tokenizer/hf/ByteLevelTable.h"
#include "core/tokenizer/hf/Pattern.h"
#include "core/util/Utf8.h"

namespace maskscope::hf {
namespace {

class ByteLevelDec : public Decoder {
public:
  void decodeChain(std::vector<std::string>& tokens, bool) const override {
    const ByteLevelTable& table = ByteLevelTable::get();
    std::string bytes;
    for (const std::string& t : tokens) {
      std::string mine;
      bool ok = true;
      for (size_t i = 0; i < t.size() && ok;) {
        char32_t c = utf8::decode(t, i);
        if (c < 0x200 && table.toByte[c] >= 0)
          mine += char(table.toByte[c]);
        else
          ok = false;
      }
      bytes += ok ? mine : t; // a token outside the table passes through as its own bytes
    }
    tokens.assign(1, utf8::sanitize(bytes));
  }
};

bool byteToken(const std::string& t, unsigned char& b) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return false;
  auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
  };
  int h = hex(t[3]), l = hex(t[4]);
  if (h < 0 || l < 0) return false;
  b = static_cast<unsigned char>(h * 16 + l);
  return true;
}

class ByteFallbackDec : public Decoder {
public:
  void decodeChain(std::vector<std::string>& tokens, bool) const override {
    std::vector<std::string> out;
    std::string pending;
    auto flush = [&] {
      if (pending.empty()) return;
      if (utf8::isValid(pending))
        out.push_back(pending);
      else
        for (size_t i = 0; i < pending.size(); ++i) out.push_back("\xEF\xBF\xBD");
      pending.clear();
    };
    for (std::string& t : tokens) {
      unsigned char b;
      if (byteToken(t, b)) {
        pending += char(b);
        continue;
      }
      flush();
      out.push_back(std::move(t));
    }
    flush();
    tokens = std::move(out);
  }
};

class ReplaceDec : public Decoder {
public:
  ReplaceDec(Pattern p, std::string content) : p_(std::move(p)), content_(std::move(content)) {}
  void decodeChain(std::vector<std::string>& tokens, bool) const override {
    for (std::string& t : tokens) {
      std::string out;
      size_t last = 0;
      if (!p_.isRegex && !p_.literal.empty()) {
        for (size_t pos = t.find(p_.literal); pos != std::string::npos;
             pos = t.find(p_.literal, pos + p_.literal.size())) {
          out.append(t, last, pos - last);
          out += content_;
          last = pos + p_.literal.size();
        }
      } else if (p_.isRegex) {
        p_.regex->forEachMatch(t, [&](size_t b, size_t e) {
          out.append(t, last, b - last);
          out += content_;
          last = e;
        });
      }
      out.append(t, last, std::string::npos);
      t = std::move(out);
    }
  }

private:
  Pattern p_;
  std::string content_;
};

class FuseDec : public Decoder {
public:
  void decodeChain(std::vector<std::string>& tokens, bool) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    tokens.assign(1, std::move(all));
  }
};

class StripDec : public Decoder {
public:
  StripDec(std::string content, size_t start, size_t stop) : content_(std::move(content)), start_(start), stop_(stop) {}
  void decodeChain(std::vector<std::string>& tokens, bool atStart) const override {
    if (!atStart) return; // shown alone, a token keeps its leading space
    for (std::string& t : tokens) {
      size_t b = 0;
      for (size_t n = 0; n < start_ && t.compare(b, content_.size(), content_) == 0 && !content_.empty(); ++n)
        b += content_.size();
      size_t e = t.size();
      for (size_t n = 0; n < stop_ && e >= b + content_.size() && !content_.empty() &&
                         t.compare(e - content_.size(), content_.size(), content_) == 0;
           ++n)
        e -= content_.size();
      t = t.substr(b, e - b);
    }
  }

private:
  std::string content_;
  size_t start_, stop_;
};

class MetaspaceDec : public Decoder {
public:
  MetaspaceDec(std::string rep, bool prependFirst) : rep_(std::move(rep)), prepend_(prependFirst) {}
  void decodeChain(std::vector<std::string>& tokens, bool atStart) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string out;
      const std::string& t = tokens[i];
      size_t last = 0;
      for (size_t pos = t.find(rep_); pos != std::string::npos && !rep_.empty();
           pos = t.find(rep_, pos + rep_.size())) {
        out.append(t, last, pos - last);
        out += ' ';
        last = pos + rep_.size();
      }
      out.append(t, last, std::string::npos);
      if (i == 0 && atStart && prepend_ && out.starts_with(' ')) out.erase(0, 1);
      tokens[i] = std::move(out);
    }
  }

private:
  std::string rep_;
  bool prepend_;
};

class SequenceDec : public Decoder {
public:
  std::vector<std::unique_ptr<Decoder>> parts;
  void decodeChain(std::vector<std::string>& tokens, bool atStart) const override {
    for (const auto& p : parts) p->decodeChain(tokens, atStart);
  }
};

} // namespace

std::unique_ptr<Decoder> parseDecoder(const Json& v, const JsonPath& at) {
  const std::string type = typeOf(v, at);
  if (type == "ByteLevel") return std::make_unique<ByteLevelDec>();
  if (type == "ByteFallback") return std::make_unique<ByteFallbackDec>();
  if (type == "Fuse") return std::make_unique<FuseDec>();
  if (type == "Replace")
    return std::make_unique<ReplaceDec>(parsePattern(member(v, "pattern", at), at / "pattern"),
                                        getString(member(v, "content", at), at / "content"));
  if (type == "Strip")
    return std::make_unique<StripDec>(getString(member(v, "content", at), at / "content"),
                                      size_t(getInt(member(v, "start", at), at / "start", 0, 1 << 20)),
                                      size_t(getInt(member(v, "stop", at), at / "stop", 0, 1 << 20)));
  if (type == "Metaspace") {
    bool prepend = true;
    if (const Json* s = optMember(v, "prepend_scheme"))
      prepend = getString(*s, at / "prepend_scheme") != "never";
    else
      prepend = optBool(v, "add_prefix_space", at, true);
    return std::make_unique<MetaspaceDec>(optString(v, "replacement", at, "\xE2\x96\x81"), prepend);
  }
  if (type == "Sequence") {
    auto seq = std::make_unique<SequenceDec>();
    const Json& list = member(v, "decoders", at);
    if (!list.is_array()) (at / "decoders").fail("expected a list");
    if (list.size() > 64) (at / "decoders").fail("too many decoders");
    for (size_t i = 0; i < list.size(); ++i) seq->parts.push_back(parseDecoder(list[i], (at / "decoders")[i]));
    return seq;
  }
  (at / "type").fail("unsupported decoder: " + type);
}

} // namespace maskscope::hf
