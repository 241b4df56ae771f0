// HfTokenizer: assembling the pipeline from tokenizer.json (+ tokenizer_config.json) and running it.
#include "core/tokenizer/hf/HfTokenizer.h"
#include "core/tokenizer/hf/Regex.h"

#include "core/util/Utf8.h"

#include <algorithm>

namespace maskscope::hf {
namespace {

constexpr size_t kMaxAddedTokens = 1 << 20;

// bos_token etc.: a string or an AddedToken object {"content": ...}.
std::string tokenString(const Json* v, const JsonPath& at) {
  if (!v) return {};
  if (v->is_string()) return v->get<std::string>();
  if (v->is_object()) return optString(*v, "content", at);
  at.fail("expected a token string or an object with \"content\"");
}

} // namespace

HfTokenizer::HfTokenizer(const std::string& path, const Json& json, const Json* config, const std::string& configPath,
                         RawModel* raw)
    : source_(path) {
  const JsonPath root{&source_, ""};
  if (!json.is_object()) root.fail("tokenizer.json must hold a JSON object");
  model_ = std::make_unique<BpeModel>(member(json, "model", root), root / "model", raw);
  if (const Json* n = optMember(json, "normalizer")) normalizer_ = parseNormalizer(*n, root / "normalizer");
  if (const Json* p = optMember(json, "pre_tokenizer")) {
    preTokenizer_ = parsePreTokenizer(*p, root / "pre_tokenizer");
    byteLevel_ = preTokenizer_->byteLevel();
  }
  if (const Json* d = optMember(json, "decoder")) decoder_ = parseDecoder(*d, root / "decoder");

  if (const Json* list = optMember(json, "added_tokens")) {
    const JsonPath at = root / "added_tokens";
    if (!list->is_array()) at.fail("expected a list");
    if (list->size() > kMaxAddedTokens) at.fail("too many added tokens");
    for (size_t i = 0; i < list->size(); ++i) {
      const Json& t = (*list)[i];
      AddedToken tok;
      tok.id = int32_t(getInt(member(t, "id", at[i]), at[i] / "id", 0, (int64_t(1) << 24) - 1));
      tok.content = getString(member(t, "content", at[i]), at[i] / "content");
      if (tok.content.empty()) (at[i] / "content").fail("an added token cannot be empty");
      if (!utf8::isValid(tok.content)) (at[i] / "content").fail("not valid UTF-8");
      tok.special = optBool(t, "special", at[i], false);
      tok.singleWord = optBool(t, "single_word", at[i], false);
      tok.lstrip = optBool(t, "lstrip", at[i], false);
      tok.rstrip = optBool(t, "rstrip", at[i], false);
      tok.normalized = optBool(t, "normalized", at[i], !tok.special);
      added_.add(std::move(tok));
    }
  }
  std::vector<std::string> normalizedContents;
  try {
    for (const AddedToken& t : added_.tokens()) {
      NormalizedText nt = NormalizedText::identity(t.content, 0);
      if (t.normalized && normalizer_) normalizer_->run(nt);
      normalizedContents.push_back(nt.text());
    }
  } catch (const NormalizerGrowthError& e) { // an amplifying normalizer is refused on the added tokens already
    normalizerError(e);
  } catch (const RegexMatchError& e) {
    throw Error(std::string("pre-tokenizer or normalizer regex: ") + e.what(), SourceLocation{source_});
  }
  added_.build(normalizedContents);

  vocabSize_ = model_->size();
  for (const AddedToken& t : added_.tokens()) vocabSize_ = std::max(vocabSize_, t.id + 1);

  if (const Json* p = optMember(json, "post_processor"))
    postProcessor_ =
        parsePostProcessor(*p, root / "post_processor", [this](const std::string& s) { return tokenToId(s); });

  if (!model_->unkToken().empty()) {
    specials_.unkText = model_->unkToken();
    specials_.unk = tokenToId(specials_.unkText);
  }
  if (config) {
    const std::string* cp = &configPath;
    readConfig(*config, JsonPath{cp, ""});
  }
}

void HfTokenizer::normalizerError(const NormalizerGrowthError& e) const {
  SourceLocation where{source_};
  where.field = e.field();
  throw Error(e.what(), where);
}

void HfTokenizer::readConfig(const Json& config, const JsonPath& at) {
  if (!config.is_object()) at.fail("tokenizer_config.json must hold a JSON object");
  auto read = [&](const char* key, std::optional<int32_t>& id, std::string& text) {
    std::string s = tokenString(optMember(config, key), at / key);
    if (s.empty()) return;
    text = s;
    id = tokenToId(s);
  };
  read("bos_token", specials_.bos, specials_.bosText);
  read("eos_token", specials_.eos, specials_.eosText);
  read("pad_token", specials_.pad, specials_.padText);
  read("unk_token", specials_.unk, specials_.unkText);

  // transformers' Llama/Gemma fast tokenizers rebuild their post-processor from these flags.
  std::string cls = optMember(config, "tokenizer_class") && config["tokenizer_class"].is_string()
                        ? config["tokenizer_class"].get<std::string>()
                        : std::string();
  if (cls.ends_with("Fast")) cls.resize(cls.size() - 4);
  const bool rebuilds =
      cls == "LlamaTokenizer" || cls == "GemmaTokenizer" || cls == "CodeLlamaTokenizer" || cls == "CohereTokenizer";
  const Json* addBos = optMember(config, "add_bos_token");
  const Json* addEos = optMember(config, "add_eos_token");
  if (rebuilds && (addBos || addEos)) {
    bool bos = optBool(config, "add_bos_token", at, true), eos = optBool(config, "add_eos_token", at, false);
    if (bos && !specials_.bos) (at / "add_bos_token").fail("add_bos_token is true but bos_token is not a token");
    if (eos && !specials_.eos) (at / "add_eos_token").fail("add_eos_token is true but eos_token is not a token");
    std::optional<std::pair<int32_t, std::string>> b, e;
    if (bos) b = std::make_pair(*specials_.bos, specials_.bosText);
    if (eos) e = std::make_pair(*specials_.eos, specials_.eosText);
    postProcessor_ = makeBosEosTemplate(b, e);
  }
}

namespace {

// Room for n more tokens, growing by a quarter rather than doubling: a 10 MB text has millions of
// tokens, and a doubling at the end would briefly hold three times the encoding.
void reserveMore(Encoding& enc, size_t n) {
  if (enc.ids.size() + n <= enc.ids.capacity()) return;
  const size_t want = std::max(enc.ids.size() + n, enc.ids.capacity() + enc.ids.capacity() / 4);
  enc.ids.reserve(want);
  if (enc.keepTokenStrings) enc.tokens.reserve(want);
  enc.offsets.reserve(want);
  enc.special.reserve(want);
}

} // namespace

void HfTokenizer::pushAdded(int32_t id, ByteSpan span, Encoding& enc) const {
  const AddedToken* t = added_.byId(id);
  enc.ids.push_back(id);
  if (enc.keepTokenStrings) enc.tokens.push_back(t ? t->content : std::string());
  enc.offsets.push_back(span);
  enc.special.push_back(t && t->special ? 1 : 0);
}

Encoding HfTokenizer::encode(std::string_view text, const EncodeOptions& options) const {
  int64_t bad = utf8::firstInvalid(text);
  if (bad >= 0) {
    SourceLocation where;
    where.file = "text";
    where.byteOffset = bad;
    throw Error("text to tokenize is not valid UTF-8 at byte " + std::to_string(bad), where);
  }
  Encoding enc;
  // Token strings are the vocabulary's: callers that can look them up may skip them, unless the
  // post-processor reads them (trim_offsets).
  enc.keepTokenStrings = options.tokenStrings || (postProcessor_ && postProcessor_->needsTokenStrings());
  // Reserved generously (a token per 2 bytes): pages never written stay virtual, so this costs no
  // memory, and it saves the growth copies (a 10 MB text of 3.4M tokens grew twice from 1 per 4 bytes).
  reserveMore(enc, text.size() / 2 + 4);
  try {
    for (const AddedSplit& s : added_.split(text, false, options.splitSpecialTokens)) {
      if (s.id >= 0)
        pushAdded(s.id, {int64_t(s.begin), int64_t(s.end)}, enc);
      else
        encodeText(text.substr(s.begin, s.end - s.begin), int64_t(s.begin), options.splitSpecialTokens, enc);
    }
  } catch (const RegexMatchError& e) { // a pattern of this tokenizer.json, so the error names it
    throw Error(std::string("pre-tokenizer or normalizer regex: ") + e.what(), SourceLocation{source_});
  } catch (const NormalizerGrowthError& e) {
    normalizerError(e);
  }
  if (postProcessor_) postProcessor_->process(enc, options.addSpecialTokens);
  return enc;
}

void HfTokenizer::encodeText(std::string_view text, int64_t base, bool splitSpecial, Encoding& enc) const {
  if (text.empty()) return;
  NormalizedText nt = NormalizedText::identity(text, base);
  if (normalizer_) normalizer_->run(nt);
  if (!added_.hasNormalized()) {
    encodePieces(std::move(nt), enc);
    return;
  }
  // Added tokens with normalized=true are found in the normalized text.
  for (const AddedSplit& s : added_.split(nt.text(), true, splitSpecial)) {
    if (s.id >= 0)
      pushAdded(s.id, nt.original(s.begin, s.end), enc);
    else
      encodePieces(nt.slice(s.begin, s.end), enc);
  }
}

void HfTokenizer::encodePieces(NormalizedText text, Encoding& enc) const {
  if (text.empty()) return;
  std::vector<WordToken> words;
  if (!preTokenizer_ || preTokenizer_->canStream()) { // cut without copying pieces
    const std::string& s = text.text();
    auto sink = [&](size_t b, size_t e) {
      words.clear();
      model_->tokenize(std::string_view(s).substr(b, e - b), byteLevel_, words);
      reserveMore(enc, words.size());
      for (const WordToken& w : words) {
        enc.ids.push_back(w.id);
        if (enc.keepTokenStrings) {
          const std::string* tok = model_->idToToken(w.id);
          enc.tokens.push_back(tok ? *tok : std::string());
        }
        enc.offsets.push_back(text.original(b + size_t(w.begin), b + size_t(w.end)));
        enc.special.push_back(0);
      }
    };
    if (preTokenizer_)
      preTokenizer_->stream(s, 0, s.size(), sink);
    else
      sink(0, s.size());
    return;
  }
  std::vector<NormalizedText> pieces;
  pieces.push_back(std::move(text));
  preTokenizer_->split(pieces);
  for (const NormalizedText& p : pieces) {
    words.clear();
    model_->tokenize(p.text(), byteLevel_, words);
    reserveMore(enc, words.size());
    for (const WordToken& w : words) {
      enc.ids.push_back(w.id);
      if (enc.keepTokenStrings) {
        const std::string* tok = model_->idToToken(w.id);
        enc.tokens.push_back(tok ? *tok : std::string());
      }
      enc.offsets.push_back(p.original(size_t(w.begin), size_t(w.end)));
      enc.special.push_back(0);
    }
  }
}

std::string HfTokenizer::decode(std::span<const int32_t> ids, bool skipSpecialTokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    if (const AddedToken* t = added_.byId(id)) {
      if (!(skipSpecialTokens && t->special)) tokens.push_back(t->content);
    } else if (const std::string* s = model_->idToToken(id)) {
      tokens.push_back(*s);
    }
  }
  std::string out;
  if (!decoder_) {
    for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
    return out;
  }
  decoder_->decodeChain(tokens, true);
  for (const std::string& t : tokens) out += t;
  return out;
}

std::string HfTokenizer::idToToken(int32_t id) const {
  if (const AddedToken* t = added_.byId(id)) return t->content;
  const std::string* s = model_->idToToken(id);
  return s ? *s : std::string();
}

std::optional<int32_t> HfTokenizer::tokenToId(std::string_view token) const {
  if (auto id = added_.idOf(token)) return id;
  return model_->tokenToId(token);
}

std::string HfTokenizer::displayText(int32_t id) const {
  const AddedToken* added = added_.byId(id);
  if (added && added->special) return added->content;
  std::string tok = idToToken(id);
  if (tok.empty() || !decoder_) return tok;
  std::vector<std::string> tokens{tok};
  decoder_->decodeChain(tokens, false);
  std::string out;
  for (const std::string& t : tokens) out += t;
  return out;
}

bool HfTokenizer::isSpecial(int32_t id) const {
  const AddedToken* t = added_.byId(id);
  return t && t->special;
}

std::vector<std::string> HfTokenizer::specialTokenStrings() const {
  std::vector<std::string> out;
  for (const AddedToken& t : added_.tokens())
    if (t.special) out.push_back(t.content);
  return out;
}

} // namespace maskscope::hf
