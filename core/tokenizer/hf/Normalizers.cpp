// Normalizers. Unicode forms run per chunk, and per grapheme cluster where a chunk changes, so
// changed text maps back to the cluster it came from (NormalizedText.h). ASCII is invariant in
// every form, which keeps English text on the fast path.
#include "core/tokenizer/hf/Normalizers.h"

#include "core/tokenizer/hf/Pattern.h"
#include "core/util/Utf8.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace maskscope::hf {
namespace {

bool normalizeForm(std::string_view s, int options, std::string& out) {
  utf8proc_uint8_t* buf = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), utf8proc_ssize_t(s.size()),
                                    &buf, utf8proc_option_t(options));
  if (n < 0) return false;
  out.assign(reinterpret_cast<const char*>(buf), size_t(n));
  std::free(buf);
  return true;
}

// Characters NFC leaves alone and that never combine with a neighbour: no canonical decomposition
// that NFC would not restore, canonical combining class 0, never the second half of a composition.
// (Greek, Arabic, Indic and combining blocks are left to utf8proc.)
bool nfcInert(char32_t c) {
  return c < 0x300 || (c >= 0x400 && c <= 0x4FF) || (c >= 0x2002 && c <= 0x206F) || (c >= 0x3000 && c <= 0x3029) ||
         (c >= 0x3030 && c <= 0x3098) || (c >= 0x309B && c <= 0x30FF) || (c >= 0x4E00 && c <= 0x9FFF) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x1F000 && c <= 0x1FAFF);
}

class UnicodeForm : public Normalizer {
public:
  explicit UnicodeForm(int options) : options_(options | UTF8PROC_STABLE), nfc_(options == UTF8PROC_COMPOSE) {}
  void normalize(NormalizedText& t, const GrowthLimit& limit) const override {
    const std::string& s = t.text();
    // Fast path: all ASCII.
    size_t firstNonAscii = 0;
    while (firstNonAscii < s.size() && static_cast<unsigned char>(s[firstNonAscii]) < 0x80) ++firstNonAscii;
    if (firstNonAscii == s.size()) return;
    NormalizedBuilder b;
    std::string norm;
    bool changed = false;
    size_t i = 0;
    while (i < s.size()) {
      // Stable ASCII: an ASCII byte followed by ASCII or the end (nothing can combine with it).
      size_t j = i;
      while (j < s.size() && static_cast<unsigned char>(s[j]) < 0x80 &&
             (j + 1 == s.size() || static_cast<unsigned char>(s[j + 1]) < 0x80))
        ++j;
      if (j > i) {
        b.copy(t, i, j);
        i = j;
        continue;
      }
      // A chunk up to the next stable ASCII byte.
      while (j < s.size() && !(static_cast<unsigned char>(s[j]) < 0x80 &&
                               (j + 1 == s.size() || static_cast<unsigned char>(s[j + 1]) < 0x80)))
        ++j;
      std::string_view chunk(s.data() + i, j - i);
      if (nfc_) {
        bool inert = true;
        for (size_t p = 0; p < chunk.size() && inert;) inert = nfcInert(utf8::decode(chunk, p));
        if (inert) {
          b.copy(t, i, j);
          i = j;
          continue;
        }
      }
      if (normalizeForm(chunk, options_, norm) && norm == chunk) {
        b.copy(t, i, j);
        i = j;
        continue;
      }
      changed = true;
      // Per grapheme cluster.
      auto emit = [&](size_t cb, size_t ce) {
        std::string_view cluster(s.data() + cb, ce - cb);
        if (!normalizeForm(cluster, options_, norm) || norm == cluster)
          b.copy(t, cb, ce);
        else
          b.produce(norm, t.original(cb, ce));
      };
      utf8proc_int32_t state = 0;
      size_t p = i, start = i;
      char32_t prev = utf8::decode(s, p);
      while (p < j) {
        size_t q = p;
        char32_t c = utf8::decode(s, q);
        if (utf8proc_grapheme_break_stateful(utf8proc_int32_t(prev), utf8proc_int32_t(c), &state)) {
          emit(start, p);
          start = p;
        }
        prev = c;
        p = q;
      }
      emit(start, j);
      i = j;
    }
    if (b.size() > limit.maxBytes) tooLarge(limit, b.size()); // NFKC expands a character at most 11x
    if (changed) t = b.finish();
  }

private:
  int options_;
  bool nfc_;
};

class Prepend : public Normalizer {
public:
  explicit Prepend(std::string p) : prepend_(std::move(p)) {}
  void normalize(NormalizedText& t, const GrowthLimit& limit) const override {
    if (t.empty() || prepend_.empty()) return;
    if (t.size() + prepend_.size() > limit.maxBytes) tooLarge(limit, t.size() + prepend_.size());
    NormalizedBuilder b;
    size_t first = size_t(utf8::sequenceLength(static_cast<unsigned char>(t.text()[0])));
    b.produce(prepend_, t.original(0, std::min(first, t.size())));
    b.copy(t, 0, t.size());
    t = b.finish();
  }

private:
  std::string prepend_;
};

// Rewrites each match of a pattern with content (aligned to the match's original range).
class Replace : public Normalizer {
public:
  Replace(Pattern p, std::string content) : pattern_(std::move(p)), content_(std::move(content)) {}
  void normalize(NormalizedText& t, const GrowthLimit& limit) const override {
    const std::string& s = t.text();
    NormalizedBuilder b;
    size_t last = 0;
    bool any = false;
    auto onMatch = [&](size_t mb, size_t me) {
      if (me == mb) return;
      any = true;
      // Checked before the bytes are made: what is built so far plus this match's replacement.
      const size_t next = b.size() + (mb - last) + content_.size();
      if (next > limit.maxBytes) tooLarge(limit, next);
      b.copy(t, last, mb);
      if (!content_.empty()) b.produce(content_, t.original(mb, me));
      last = me;
    };
    if (!pattern_.isRegex && !pattern_.literal.empty()) {
      for (size_t pos = s.find(pattern_.literal); pos != std::string::npos;
           pos = s.find(pattern_.literal, pos + pattern_.literal.size()))
        onMatch(pos, pos + pattern_.literal.size());
    } else if (pattern_.isRegex) {
      pattern_.regex->forEachMatch(s, onMatch);
    }
    if (!any) return;
    if (b.size() + (s.size() - last) > limit.maxBytes) tooLarge(limit, b.size() + (s.size() - last));
    b.copy(t, last, s.size());
    t = b.finish();
  }

private:
  Pattern pattern_;
  std::string content_;
};

class Lowercase : public Normalizer {
public:
  void normalize(NormalizedText& t, const GrowthLimit& limit) const override {
    const std::string& s = t.text();
    NormalizedBuilder b;
    bool any = false;
    std::string buf;
    for (size_t i = 0; i < s.size();) {
      size_t j = i;
      char32_t c = utf8::decode(s, j);
      char32_t l = char32_t(utf8proc_tolower(utf8proc_int32_t(c)));
      if (l == c)
        b.copy(t, i, j);
      else {
        any = true;
        buf.clear();
        utf8::append(buf, l);
        b.produce(buf, t.original(i, j));
      }
      i = j;
    }
    if (b.size() > limit.maxBytes) tooLarge(limit, b.size()); // a lower case is at most 3 bytes longer
    if (any) t = b.finish();
  }
};

bool isWhitespace(char32_t c) {
  if (c == ' ' || (c >= 0x09 && c <= 0x0D)) return true;
  if (c < 0x80) return false;
  auto cat = utf8proc_category(utf8proc_int32_t(c));
  return c == 0x85 || cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

class Strip : public Normalizer {
public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  void normalize(NormalizedText& t, const GrowthLimit&) const override {
    const std::string& s = t.text();
    size_t b = 0, e = s.size();
    if (left_)
      while (b < e) {
        size_t j = b;
        if (!isWhitespace(utf8::decode(s, j))) break;
        b = j;
      }
    if (right_)
      while (e > b) {
        size_t k = e - 1;
        while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
        size_t j = k;
        if (!isWhitespace(utf8::decode(s, j))) break;
        e = k;
      }
    if (b != 0 || e != s.size()) t = t.slice(b, e);
  }

private:
  bool left_, right_;
};

class SequenceNormalizer : public Normalizer {
public:
  std::vector<std::unique_ptr<Normalizer>> parts;
  void normalize(NormalizedText& t, const GrowthLimit& limit) const override {
    for (const auto& p : parts) p->normalize(t, limit); // one limit for the chain: steps cannot compound
  }
};

std::unique_ptr<Normalizer> makeNormalizer(const Json& v, const JsonPath& at, const std::string& type);

} // namespace

GrowthLimit GrowthLimit::forInput(size_t inputBytes) {
  GrowthLimit l;
  l.inputBytes = inputBytes;
  l.maxBytes = std::min(kNormalizerCap, inputBytes * kNormalizerGrowth + kNormalizerSlack);
  return l;
}

void Normalizer::tooLarge(const GrowthLimit& limit, size_t reached) const {
  throw NormalizerGrowthError("the " + type + " normalizer amplifies the text: an input of " +
                                  std::to_string(limit.inputBytes) + " bytes would become " + std::to_string(reached) +
                                  " bytes or more (the limit is " + std::to_string(kNormalizerGrowth) +
                                  " times the input plus " + std::to_string(kNormalizerSlack) + " bytes, at most " +
                                  std::to_string(kNormalizerCap >> 20) + " MiB)",
                              field);
}

std::unique_ptr<Normalizer> parseNormalizer(const Json& v, const JsonPath& at) {
  const std::string type = typeOf(v, at);
  std::unique_ptr<Normalizer> n = makeNormalizer(v, at, type);
  n->field = at.field;
  n->type = type;
  return n;
}

namespace {

std::unique_ptr<Normalizer> makeNormalizer(const Json& v, const JsonPath& at, const std::string& type) {
  if (type == "NFC") return std::make_unique<UnicodeForm>(UTF8PROC_COMPOSE);
  if (type == "NFD") return std::make_unique<UnicodeForm>(UTF8PROC_DECOMPOSE);
  if (type == "NFKC") return std::make_unique<UnicodeForm>(UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
  if (type == "NFKD") return std::make_unique<UnicodeForm>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
  if (type == "Prepend") return std::make_unique<Prepend>(getString(member(v, "prepend", at), at / "prepend"));
  if (type == "Replace")
    return std::make_unique<Replace>(parsePattern(member(v, "pattern", at), at / "pattern"),
                                     getString(member(v, "content", at), at / "content"));
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "Strip")
    return std::make_unique<Strip>(optBool(v, "strip_left", at, true), optBool(v, "strip_right", at, true));
  if (type == "Sequence") {
    auto seq = std::make_unique<SequenceNormalizer>();
    const Json& list = member(v, "normalizers", at);
    if (!list.is_array()) (at / "normalizers").fail("expected a list");
    if (list.size() > 64) (at / "normalizers").fail("too many normalizers");
    for (size_t i = 0; i < list.size(); ++i) seq->parts.push_back(parseNormalizer(list[i], (at / "normalizers")[i]));
    return seq;
  }
  (at / "type").fail("unsupported normalizer: " + type);
}

} // namespace

} // namespace maskscope::hf
