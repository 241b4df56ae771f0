// Pre-tokenizers, following the Rust library's split semantics (match list -> delimiter behavior
// -> non-empty slices).
#include "core/tokenizer/hf/PreTokenizers.h"

#include "core/tokenizer/hf/Pattern.h"

#include <algorithm>
#include <string_view>

namespace maskscope::hf {
namespace {

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior parseBehavior(const Json& v, const JsonPath& at) {
  const std::string b = getString(v, at);
  if (b == "Removed") return Behavior::Removed;
  if (b == "Isolated") return Behavior::Isolated;
  if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (b == "MergedWithNext") return Behavior::MergedWithNext;
  if (b == "Contiguous") return Behavior::Contiguous;
  at.fail("unsupported split behavior: " + b);
}

struct Range {
  size_t b, e;
  bool match;
};

// The kept pieces of s per behavior, as ranges of s (match = removed).
std::vector<Range> splitRanges(std::string_view s, const Regex& re, Behavior behavior, bool invert) {
  std::vector<Range> ranges;
  // A whole 10 MB text is one piece here: growing the vector by doubling copied it ~twice over (a
  // tenth of `tokenize --json`'s time). Reserved pages are only touched as ranges are written.
  if (s.size() > 4096) ranges.reserve(s.size() / 3 + 2);
  size_t prev = 0;
  re.forEachMatch(s, [&](size_t b, size_t e) {
    if (prev != b) ranges.push_back({prev, b, invert});
    ranges.push_back({b, e, !invert});
    prev = e;
  });
  if (prev != s.size()) ranges.push_back({prev, s.size(), invert});

  std::vector<Range> splits; // match flag now means "remove"
  switch (behavior) {
  case Behavior::Removed:
    splits = std::move(ranges);
    break;
  case Behavior::Isolated:
    splits = std::move(ranges);
    for (auto& r : splits) r.match = false;
    break;
  case Behavior::Contiguous: {
    bool previous = false;
    for (const Range& r : ranges) {
      if (r.match == previous && !splits.empty())
        splits.back().e = r.e;
      else
        splits.push_back({r.b, r.e, false});
      previous = r.match;
    }
    break;
  }
  case Behavior::MergedWithPrevious: {
    bool previous = false;
    for (const Range& r : ranges) {
      if (r.match && !previous && !splits.empty())
        splits.back().e = r.e;
      else
        splits.push_back({r.b, r.e, false});
      previous = r.match;
    }
    break;
  }
  case Behavior::MergedWithNext: {
    bool previous = false;
    for (size_t i = ranges.size(); i-- > 0;) {
      const Range& r = ranges[i];
      if (r.match && !previous && !splits.empty())
        splits.back().b = r.b;
      else
        splits.push_back({r.b, r.e, false});
      previous = r.match;
    }
    std::reverse(splits.begin(), splits.end());
    break;
  }
  }
  return splits;
}

// Splits one piece by the pattern's matches (or non-matches when inverted) per behavior.
void splitPiece(const NormalizedText& piece, const Regex& re, Behavior behavior, bool invert,
                std::vector<NormalizedText>& out) {
  if (piece.empty()) return;
  for (const Range& r : splitRanges(piece.text(), re, behavior, invert))
    if (!r.match && r.e > r.b) out.push_back(piece.slice(r.b, r.e));
}

void streamPiece(std::string_view text, size_t b, size_t e, const Regex& re, Behavior behavior, bool invert,
                 const PreTokenizer::RangeSink& sink) {
  if (e <= b) return;
  for (const Range& r : splitRanges(text.substr(b, e - b), re, behavior, invert))
    if (!r.match && r.e > r.b) sink(b + r.b, b + r.e);
}

class RegexSplit : public PreTokenizer {
public:
  RegexSplit(std::shared_ptr<Regex> re, Behavior behavior, bool invert)
      : re_(std::move(re)), behavior_(behavior), invert_(invert) {}
  void split(std::vector<NormalizedText>& pieces) const override {
    std::vector<NormalizedText> out;
    out.reserve(pieces.size());
    for (const NormalizedText& p : pieces) splitPiece(p, *re_, behavior_, invert_, out);
    pieces = std::move(out);
  }
  bool canStream() const override { return true; }
  void stream(std::string_view text, size_t b, size_t e, const RangeSink& sink) const override {
    streamPiece(text, b, e, *re_, behavior_, invert_, sink);
  }

private:
  std::shared_ptr<Regex> re_;
  Behavior behavior_;
  bool invert_;
};

// Splitting on a literal string without the regex engine (Gemma's " ", Metaspace's "▁").
class LiteralSplit : public PreTokenizer {
public:
  LiteralSplit(std::string literal, Behavior behavior, bool invert)
      : literal_(std::move(literal)), re_(Regex::quote(literal_)), behavior_(behavior), invert_(invert) {}
  void split(std::vector<NormalizedText>& pieces) const override {
    std::vector<NormalizedText> out;
    out.reserve(pieces.size());
    for (NormalizedText& p : pieces) {
      if (literal_.empty() || p.text().find(literal_) == std::string::npos) {
        // No match: one non-match range, kept unless it is what gets removed.
        if (!p.empty() && !(invert_ && behavior_ == Behavior::Removed)) out.push_back(std::move(p));
        continue;
      }
      splitPiece(p, re_, behavior_, invert_, out);
    }
    pieces = std::move(out);
  }
  bool canStream() const override { return true; }
  void stream(std::string_view text, size_t b, size_t e, const RangeSink& sink) const override {
    if (e <= b) return;
    if (literal_.empty() || text.substr(b, e - b).find(literal_) == std::string_view::npos) {
      if (!(invert_ && behavior_ == Behavior::Removed)) sink(b, e);
      return;
    }
    streamPiece(text, b, e, re_, behavior_, invert_, sink);
  }

private:
  std::string literal_;
  Regex re_;
  Behavior behavior_;
  bool invert_;
};

const char* kGpt2Pattern = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

class ByteLevel : public PreTokenizer {
public:
  ByteLevel(bool addPrefixSpace, bool useRegex) : addPrefixSpace_(addPrefixSpace) {
    if (useRegex) re_ = std::make_unique<Regex>(kGpt2Pattern);
  }
  bool byteLevel() const override { return true; }
  void split(std::vector<NormalizedText>& pieces) const override {
    if (addPrefixSpace_)
      for (NormalizedText& p : pieces)
        if (!p.empty() && p.text()[0] != ' ') {
          NormalizedBuilder b;
          b.produce(" ", p.original(0, 1)); // Rust aligns the added space with the first character
          b.copy(p, 0, p.size());
          p = b.finish();
        }
    if (!re_) return;
    std::vector<NormalizedText> out;
    for (const NormalizedText& p : pieces) splitPiece(p, *re_, Behavior::Isolated, false, out);
    pieces = std::move(out);
  }
  bool canStream() const override { return !addPrefixSpace_; }
  void stream(std::string_view text, size_t b, size_t e, const RangeSink& sink) const override {
    if (!re_) {
      if (e > b) sink(b, e);
      return;
    }
    streamPiece(text, b, e, *re_, Behavior::Isolated, false, sink);
  }

private:
  bool addPrefixSpace_;
  std::unique_ptr<Regex> re_;
};

class Metaspace : public PreTokenizer {
public:
  enum class Prepend { Always, First, Never };
  Metaspace(std::string replacement, Prepend scheme, bool split)
      : rep_(std::move(replacement)), scheme_(scheme), split_(split), splitter_(rep_, Behavior::MergedWithNext, false) {
  }
  void split(std::vector<NormalizedText>& pieces) const override {
    for (NormalizedText& p : pieces) {
      const std::string& s = p.text();
      NormalizedBuilder b;
      bool prepend = false;
      if (scheme_ == Prepend::Always)
        prepend = s.compare(0, rep_.size(), rep_) != 0 && !s.starts_with(' ');
      else if (scheme_ == Prepend::First)
        prepend = s.compare(0, rep_.size(), rep_) != 0 && !s.starts_with(' ') && p.original(0, 0).begin == 0;
      if (prepend && !s.empty()) b.produce(rep_, p.original(0, 1));
      size_t last = 0;
      for (size_t pos = s.find(' '); pos != std::string::npos; pos = s.find(' ', pos + 1)) {
        b.copy(p, last, pos);
        b.produce(rep_, p.original(pos, pos + 1));
        last = pos + 1;
      }
      b.copy(p, last, s.size());
      p = b.finish();
    }
    if (split_) splitter_.split(pieces);
  }

private:
  std::string rep_;
  Prepend scheme_;
  bool split_;
  LiteralSplit splitter_;
};

class SequencePre : public PreTokenizer {
public:
  std::vector<std::unique_ptr<PreTokenizer>> parts;
  void split(std::vector<NormalizedText>& pieces) const override {
    for (const auto& p : parts) p->split(pieces);
  }
  bool byteLevel() const override {
    for (const auto& p : parts)
      if (p->byteLevel()) return true;
    return false;
  }
  bool canStream() const override {
    for (const auto& p : parts)
      if (!p->canStream()) return false;
    return true;
  }
  void stream(std::string_view text, size_t b, size_t e, const RangeSink& sink) const override {
    streamFrom(0, text, b, e, sink);
  }

private:
  void streamFrom(size_t i, std::string_view text, size_t b, size_t e, const RangeSink& sink) const {
    if (i == parts.size()) {
      if (e > b) sink(b, e);
      return;
    }
    parts[i]->stream(text, b, e, [&](size_t sb, size_t se) { streamFrom(i + 1, text, sb, se, sink); });
  }
};

std::unique_ptr<PreTokenizer> regexPre(const std::string& pattern, Behavior behavior, bool invert) {
  return std::make_unique<RegexSplit>(std::make_shared<Regex>(pattern), behavior, invert);
}

} // namespace

std::unique_ptr<PreTokenizer> parsePreTokenizer(const Json& v, const JsonPath& at) {
  const std::string type = typeOf(v, at);
  if (type == "Sequence") {
    auto seq = std::make_unique<SequencePre>();
    const Json& list = member(v, "pretokenizers", at);
    if (!list.is_array()) (at / "pretokenizers").fail("expected a list");
    if (list.size() > 64) (at / "pretokenizers").fail("too many pre-tokenizers");
    for (size_t i = 0; i < list.size(); ++i)
      seq->parts.push_back(parsePreTokenizer(list[i], (at / "pretokenizers")[i]));
    return seq;
  }
  if (type == "ByteLevel")
    return std::make_unique<ByteLevel>(optBool(v, "add_prefix_space", at, true), optBool(v, "use_regex", at, true));
  if (type == "Split") {
    Pattern p = parsePattern(member(v, "pattern", at), at / "pattern");
    Behavior behavior = parseBehavior(member(v, "behavior", at), at / "behavior");
    bool invert = optBool(v, "invert", at, false);
    if (!p.isRegex) return std::make_unique<LiteralSplit>(p.literal, behavior, invert);
    return std::make_unique<RegexSplit>(p.regex, behavior, invert);
  }
  if (type == "Metaspace") {
    std::string rep = optString(v, "replacement", at, "\xE2\x96\x81");
    Metaspace::Prepend scheme = Metaspace::Prepend::Always;
    if (const Json* s = optMember(v, "prepend_scheme")) {
      std::string name = getString(*s, at / "prepend_scheme");
      if (name == "always")
        scheme = Metaspace::Prepend::Always;
      else if (name == "first")
        scheme = Metaspace::Prepend::First;
      else if (name == "never")
        scheme = Metaspace::Prepend::Never;
      else
        (at / "prepend_scheme").fail("unsupported prepend_scheme: " + name);
    } else if (!optBool(v, "add_prefix_space", at, true)) {
      scheme = Metaspace::Prepend::Never;
    }
    return std::make_unique<Metaspace>(rep, scheme, optBool(v, "split", at, true));
  }
  if (type == "Whitespace") return regexPre("\\w+|[^\\w\\s]+", Behavior::Removed, true);
  if (type == "WhitespaceSplit") return regexPre("\\s+", Behavior::Removed, false);
  if (type == "Punctuation") {
    Behavior b = Behavior::Isolated;
    if (const Json* x = optMember(v, "behavior")) b = parseBehavior(*x, at / "behavior");
    return regexPre("[\\p{P}\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E]", b, false);
  }
  if (type == "Digits")
    return regexPre(optBool(v, "individual_digits", at, false) ? "\\p{N}" : "\\p{N}+", Behavior::Isolated, false);
  (at / "type").fail("unsupported pre-tokenizer: " + type);
}

} // namespace maskscope::hf
