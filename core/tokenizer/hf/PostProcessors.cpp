// Post-processors. Added tokens carry the empty offset [0, 0) and special = 1, as in Rust.
#include "core/tokenizer/hf/PostProcessors.h"

#include <vector>

namespace maskscope::hf {
namespace {

struct Piece { // a template item: a special token's ids/tokens, or the sequence itself
  bool sequence = false;
  std::vector<int32_t> ids;
  std::vector<std::string> tokens;
};

void insertSpecial(Encoding& out, const Piece& p) {
  for (size_t i = 0; i < p.ids.size(); ++i) {
    out.ids.push_back(p.ids[i]);
    if (out.keepTokenStrings) out.tokens.push_back(p.tokens[i]);
    out.offsets.push_back({0, 0});
    out.special.push_back(1);
  }
}

class Template : public PostProcessor {
public:
  explicit Template(std::vector<Piece> single) : single_(std::move(single)) {}
  void process(Encoding& enc, bool add) const override {
    if (!add) return;
    Encoding out;
    out.keepTokenStrings = enc.keepTokenStrings;
    for (const Piece& p : single_) {
      if (!p.sequence) {
        insertSpecial(out, p);
        continue;
      }
      out.ids.insert(out.ids.end(), enc.ids.begin(), enc.ids.end());
      out.tokens.insert(out.tokens.end(), enc.tokens.begin(), enc.tokens.end());
      out.offsets.insert(out.offsets.end(), enc.offsets.begin(), enc.offsets.end());
      out.special.insert(out.special.end(), enc.special.begin(), enc.special.end());
    }
    enc = std::move(out);
  }

private:
  std::vector<Piece> single_;
};

bool isSpaceChar(std::string_view tok, size_t& i) { // "Ġ" (GPT-2 space) or ASCII whitespace
  if (tok.compare(i, 2, "\xC4\xA0") == 0) {
    i += 2;
    return true;
  }
  if (i < tok.size() && (tok[i] == ' ' || tok[i] == '\t' || tok[i] == '\n' || tok[i] == '\r')) {
    ++i;
    return true;
  }
  return false;
}

// Rust's process_offsets: leading/trailing spaces of a token do not count in its offsets.
void trimOffsets(Encoding& enc, bool addPrefixSpace) {
  for (size_t t = 0; t < enc.size(); ++t) {
    if (enc.special[t]) continue;
    const std::string& tok = enc.tokens[t];
    size_t i = 0, leading = 0;
    while (i < tok.size() && isSpaceChar(tok, i)) ++leading;
    size_t trailing = 0;
    if (i < tok.size()) {
      size_t e = tok.size();
      while (e > 0) {
        if (e >= 2 && tok.compare(e - 2, 2, "\xC4\xA0") == 0)
          e -= 2;
        else if (tok[e - 1] == ' ' || tok[e - 1] == '\t' || tok[e - 1] == '\n' || tok[e - 1] == '\r')
          e -= 1;
        else
          break;
        ++trailing;
      }
    } else {
      trailing = leading;
    }
    ByteSpan& o = enc.offsets[t];
    if (leading > 0) {
      bool isFirst = t == 0 || o.begin == 0;
      if (!(isFirst && addPrefixSpace && leading == 1)) o.begin = std::min(o.begin + int64_t(leading), o.end);
    }
    if (trailing > 0 && o.end >= int64_t(trailing)) o.end = std::max(o.end - int64_t(trailing), o.begin);
  }
}

class ByteLevelPost : public PostProcessor {
public:
  ByteLevelPost(bool trim, bool addPrefixSpace) : trim_(trim), addPrefixSpace_(addPrefixSpace) {}
  void process(Encoding& enc, bool) const override {
    if (trim_) trimOffsets(enc, addPrefixSpace_);
  }
  bool needsTokenStrings() const override { return trim_; }

private:
  bool trim_, addPrefixSpace_;
};

class ClsSep : public PostProcessor { // RobertaProcessing and BertProcessing
public:
  ClsSep(Piece cls, Piece sep, bool trim, bool addPrefixSpace)
      : cls_(std::move(cls)), sep_(std::move(sep)), trim_(trim), addPrefixSpace_(addPrefixSpace) {}
  void process(Encoding& enc, bool add) const override {
    if (trim_) trimOffsets(enc, addPrefixSpace_);
    if (!add) return;
    Template({cls_, Piece{true, {}, {}}, sep_}).process(enc, true);
  }
  bool needsTokenStrings() const override { return trim_; }

private:
  Piece cls_, sep_;
  bool trim_, addPrefixSpace_;
};

class SequencePost : public PostProcessor {
public:
  std::vector<std::unique_ptr<PostProcessor>> parts;
  void process(Encoding& enc, bool add) const override {
    for (const auto& p : parts) p->process(enc, add);
  }
  bool needsTokenStrings() const override {
    for (const auto& p : parts)
      if (p->needsTokenStrings()) return true;
    return false;
  }
};

Piece pairPiece(const Json& v, const JsonPath& at) { // ["[CLS]", 101]
  if (!v.is_array() || v.size() != 2) at.fail("expected [token, id]");
  Piece p;
  p.tokens.push_back(getString(v[0], at[0]));
  p.ids.push_back(int32_t(getInt(v[1], at[1], 0, INT32_MAX)));
  return p;
}

} // namespace

std::unique_ptr<PostProcessor> parsePostProcessor(const Json& v, const JsonPath& at, const SpecialLookup& lookup) {
  const std::string type = typeOf(v, at);
  if (type == "TemplateProcessing") {
    const Json& single = member(v, "single", at);
    if (!single.is_array()) (at / "single").fail("expected a list");
    const Json* specials = optMember(v, "special_tokens");
    std::vector<Piece> pieces;
    for (size_t i = 0; i < single.size(); ++i) {
      const JsonPath pat = (at / "single")[i];
      const Json& item = single[i];
      if (optMember(item, "Sequence")) {
        pieces.push_back(Piece{true, {}, {}});
        continue;
      }
      const Json* st = optMember(item, "SpecialToken");
      if (!st) pat.fail("unsupported template item (expected Sequence or SpecialToken)");
      std::string name = getString(member(*st, "id", pat / "SpecialToken"), pat / "SpecialToken" / "id");
      Piece p;
      const Json* def = specials ? optMember(*specials, name.c_str()) : nullptr;
      if (def) {
        const JsonPath dat = at / "special_tokens" / name;
        const Json& ids = member(*def, "ids", dat);
        const Json& toks = member(*def, "tokens", dat);
        if (!ids.is_array() || !toks.is_array() || ids.size() != toks.size())
          dat.fail("ids and tokens must be lists of the same length");
        for (size_t k = 0; k < ids.size(); ++k) {
          p.ids.push_back(int32_t(getInt(ids[k], (dat / "ids")[k], 0, INT32_MAX)));
          p.tokens.push_back(getString(toks[k], (dat / "tokens")[k]));
        }
      } else if (auto id = lookup(name)) {
        p.ids.push_back(*id);
        p.tokens.push_back(name);
      } else {
        pat.fail("special token \"" + name + "\" is not defined in special_tokens");
      }
      pieces.push_back(std::move(p));
    }
    return std::make_unique<Template>(std::move(pieces));
  }
  if (type == "ByteLevel")
    return std::make_unique<ByteLevelPost>(optBool(v, "trim_offsets", at, true),
                                           optBool(v, "add_prefix_space", at, true));
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    bool roberta = type == "RobertaProcessing";
    return std::make_unique<ClsSep>(
        pairPiece(member(v, "cls", at), at / "cls"), pairPiece(member(v, "sep", at), at / "sep"),
        roberta && optBool(v, "trim_offsets", at, true), roberta && optBool(v, "add_prefix_space", at, true));
  }
  if (type == "Sequence") {
    auto seq = std::make_unique<SequencePost>();
    const Json& list = member(v, "processors", at);
    if (!list.is_array()) (at / "processors").fail("expected a list");
    if (list.size() > 64) (at / "processors").fail("too many post-processors");
    for (size_t i = 0; i < list.size(); ++i)
      seq->parts.push_back(parsePostProcessor(list[i], (at / "processors")[i], lookup));
    return seq;
  }
  (at / "type").fail("unsupported post-processor: " + type);
}

std::unique_ptr<PostProcessor> makeBosEosTemplate(std::optional<std::pair<int32_t, std::string>> bos,
                                                  std::optional<std::pair<int32_t, std::string>> eos) {
  std::vector<Piece> pieces;
  if (bos) pieces.push_back(Piece{false, {bos->first}, {bos->second}});
  pieces.push_back(Piece{true, {}, {}});
  if (eos) pieces.push_back(Piece{false, {eos->first}, {eos->second}});
  return std::make_unique<Template>(std::move(pieces));
}

} // namespace maskscope::hf
