// The SAX handler behind readTokenizerJson: forwards events to nlohmann's DOM builder except inside
// model.vocab and model.merges, whose values it collects itself.
#include "core/tokenizer/hf/TokenizerJsonReader.h"
#include "core/util/JsonParse.h"

namespace maskscope::hf {
namespace {

[[noreturn]] void syntaxError(const std::string& text, const std::string& path, size_t byteOneBased,
                              const std::string& what) {
  SourceLocation where;
  where.file = path;
  size_t byte = std::min<size_t>(byteOneBased > 0 ? byteOneBased - 1 : 0, text.size());
  where.byteOffset = long(byte);
  where.line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < byte; ++i)
    if (text[i] == '\n') {
      ++where.line;
      lineStart = i + 1;
    }
  where.column = long(byte - lineStart + 1);
  throw Error("invalid JSON: " + shortJsonParseMessage(what), where);
}

using Dom = nlohmann::detail::json_sax_dom_parser<Json>;

class Handler {
public:
  Handler(Json& out, RawModel& raw) : dom_(out, false), raw_(raw) {}
  size_t errorByte = 0;
  std::string errorText;

  // Where we are: depth of the innermost open container (root object = 1) and the keys above.
  bool null() { return value(-2, nullptr); }
  bool boolean(bool v) { return value(-2, nullptr) && (capture_ != Capture::None || dom_.boolean(v)); }
  bool number_integer(int64_t v) { return value(v, nullptr) && (capture_ != Capture::None || dom_.number_integer(v)); }
  bool number_unsigned(uint64_t v) {
    return value(v > uint64_t(INT64_MAX) ? -2 : int64_t(v), nullptr) &&
           (capture_ != Capture::None || dom_.number_unsigned(v));
  }
  bool number_float(double v, const std::string& s) {
    return value(-2, nullptr) && (capture_ != Capture::None || dom_.number_float(v, s));
  }
  bool string(std::string& s) { return value(-3, &s) && (capture_ != Capture::None || dom_.string(s)); }
  bool binary(Json::binary_t& b) { return value(-2, nullptr) && (capture_ != Capture::None || dom_.binary(b)); }

  bool start_object(size_t n) {
    if (!enter()) return false;
    if (capture_ != Capture::None) return nested(true);
    ++depth_;
    const Capture pending = pendingCapture_;
    pendingCapture_ = Capture::None;
    if (!dom_.start_object(n)) return false;
    if (pending == Capture::Vocab) { // model.vocab itself stays in the DOM, empty
      raw_.haveVocab = true;
      capture_ = Capture::Vocab;
      captureDepth_ = depth_;
    }
    return true;
  }
  bool end_object() {
    if (capture_ != Capture::None && depth_ > captureDepth_) return endNested();
    if (capture_ == Capture::Vocab && depth_ == captureDepth_) capture_ = Capture::None;
    --depth_;
    return dom_.end_object();
  }
  bool start_array(size_t n) {
    if (!enter()) return false;
    if (capture_ != Capture::None) return nested(false);
    ++depth_;
    const Capture pending = pendingCapture_;
    pendingCapture_ = Capture::None;
    if (!dom_.start_array(n)) return false;
    if (pending == Capture::Merges) {
      raw_.haveMerges = true;
      capture_ = Capture::Merges;
      captureDepth_ = depth_;
    }
    return true;
  }
  bool end_array() {
    if (capture_ != Capture::None && depth_ > captureDepth_) return endNested();
    if (capture_ == Capture::Merges && depth_ == captureDepth_) capture_ = Capture::None;
    --depth_;
    return dom_.end_array();
  }
  bool key(std::string& k) {
    if (capture_ == Capture::Vocab && depth_ == captureDepth_) {
      vocabKey_ = k;
      return true;
    }
    if (capture_ != Capture::None) return true;
    if (depth_ == 1) key1_ = k;
    pendingCapture_ = Capture::None;
    if (depth_ == 2 && key1_ == "model") {
      if (k == "vocab") pendingCapture_ = Capture::Vocab;
      if (k == "merges") pendingCapture_ = Capture::Merges;
    }
    return dom_.key(k);
  }
  bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    errorByte = position;
    errorText = ex.what();
    return false;
  }

private:
  enum class Capture { None, Vocab, Merges };

  // Real tokenizer.json files nest a handful of levels; the component parsers (Sequence of Sequence
  // of ...) recurse once per level, so a hostile file nesting thousands deep must stop here.
  static constexpr int kMaxDepth = kMaxJsonDepth;
  bool enter() {
    if (depth_ < kMaxDepth) return true;
    errorText = "JSON nested more than " + std::to_string(kMaxDepth) + " levels deep";
    return false;
  }

  // A scalar: inside a capture it is collected; `id` carries integers (-2 other scalars, -3 strings).
  bool value(int64_t id, std::string* s) {
    if (capture_ == Capture::None) {
      pendingCapture_ = Capture::None;
      return true;
    }
    if (capture_ == Capture::Vocab) {
      if (depth_ == captureDepth_) raw_.vocab.emplace_back(std::move(vocabKey_), id >= 0 ? id : -1);
      return true; // values nested inside a vocab value were recorded as -1 by nested()
    }
    // Merges.
    if (depth_ == captureDepth_) { // a direct element
      RawMerge m;
      if (s) {
        m.a = std::move(*s);
        m.isLine = true;
      } else
        m.invalid = true;
      raw_.merges.push_back(std::move(m));
    } else if (depth_ == captureDepth_ + 1 && pairOpen_) {
      if (!s)
        pairBad_ = true;
      else if (pairCount_ == 0)
        current_.a = std::move(*s);
      else if (pairCount_ == 1)
        current_.b = std::move(*s);
      ++pairCount_;
    }
    return true;
  }
  bool nested(bool object) {
    ++depth_;
    if (capture_ == Capture::Vocab && depth_ == captureDepth_ + 1) {
      raw_.vocab.emplace_back(std::move(vocabKey_), -1); // a vocab value that is a container
    } else if (capture_ == Capture::Merges && depth_ == captureDepth_ + 1) {
      pairOpen_ = !object;
      pairBad_ = object;
      pairCount_ = 0;
      current_ = RawMerge();
    } else if (capture_ == Capture::Merges) {
      pairBad_ = true;
    }
    return true;
  }
  bool endNested() {
    if (capture_ == Capture::Merges && depth_ == captureDepth_ + 1) {
      current_.invalid = pairBad_ || pairCount_ != 2;
      raw_.merges.push_back(std::move(current_));
      current_ = RawMerge();
      pairOpen_ = false;
    }
    --depth_;
    return true;
  }

private:
  Dom dom_;
  RawModel& raw_;
  int depth_ = 0, captureDepth_ = -1;
  std::string key1_, vocabKey_;
  Capture capture_ = Capture::None, pendingCapture_ = Capture::None;
  bool pairOpen_ = false, pairBad_ = false;
  int pairCount_ = 0;
  RawMerge current_;
};

} // namespace

TokenizerJson readTokenizerJson(const std::string& text, const std::string& path) {
  TokenizerJson out;
  Handler h(out.json, out.model);
  // The same depth rule as every other JSON input, checked before the SAX pass builds anything.
  if (auto deep = findJsonTooDeep(text))
    syntaxError(text, path, size_t(deep->byteOffset) + 1,
                "JSON nests deeper than the limit of " + std::to_string(deep->limit) + " levels");
  bool ok = false;
  try {
    ok = Json::sax_parse(text, &h);
  } catch (const Json::exception& e) {
    syntaxError(text, path, 0, e.what());
  }
  if (!ok) syntaxError(text, path, h.errorByte, h.errorText.empty() ? "parse error" : h.errorText);
  return out;
}

Json parseJsonText(const std::string& text, const std::string& path) { return parseJsonOrThrow(text, {path}); }

} // namespace maskscope::hf
