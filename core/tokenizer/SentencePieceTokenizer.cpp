// SentencePiece tokenizer: encode with byte offsets, special-token splitting, BOS/EOS rules
// read from tokenizer_config.json (add_bos_token / add_eos_token, as LlamaTokenizer does).
#include "core/tokenizer/SentencePieceTokenizer.h"
#include "core/tokenizer/SentencePieceModelCheck.h"
#include "core/util/Error.h"
#include "core/util/JsonParse.h"

#include <nlohmann/json.hpp>
#include <sentencepiece_processor.h>

namespace maskscope {

namespace {

std::string tokenString(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return {};
}

} // namespace

SentencePieceTokenizer::SentencePieceTokenizer(std::string_view serializedModel, std::string source,
                                               std::string_view configJson)
    : sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()), source_(std::move(source)) {
  checkSentencePieceModel(serializedModel, source_); // the library trusts the charsmap's trie: check it first
  auto status = sp_->LoadFromSerializedProto(serializedModel);
  if (!status.ok()) throw Error("not a SentencePiece model: " + std::string(status.message()), {source_});
  const int n = sp_->GetPieceSize();
  auto idOrNone = [&](int id) -> std::optional<int32_t> {
    if (id < 0 || id >= n) return std::nullopt;
    return id;
  };
  specialIds_.bos = idOrNone(sp_->bos_id());
  specialIds_.eos = idOrNone(sp_->eos_id());
  specialIds_.pad = idOrNone(sp_->pad_id());
  specialIds_.unk = idOrNone(sp_->unk_id());
  if (specialIds_.bos) specialIds_.bosText = sp_->IdToPiece(*specialIds_.bos);
  if (specialIds_.eos) specialIds_.eosText = sp_->IdToPiece(*specialIds_.eos);
  if (specialIds_.pad) specialIds_.padText = sp_->IdToPiece(*specialIds_.pad);
  if (specialIds_.unk) specialIds_.unkText = sp_->IdToPiece(*specialIds_.unk);

  if (!configJson.empty()) {
    auto cfg = parseJsonOrThrow(std::string(configJson), {source_ + " (tokenizer_config.json)"});
    if (!cfg.is_object()) throw Error("tokenizer_config.json is not a JSON object", {source_});
    if (cfg.contains("add_bos_token") && cfg["add_bos_token"].is_boolean()) addBos_ = cfg["add_bos_token"].get<bool>();
    if (cfg.contains("add_eos_token") && cfg["add_eos_token"].is_boolean()) addEos_ = cfg["add_eos_token"].get<bool>();
    auto adopt = [&](const char* key, std::optional<int32_t>& id, std::string& text) {
      if (!cfg.contains(key)) return;
      std::string s = tokenString(cfg[key]);
      if (s.empty()) return;
      int pid = sp_->PieceToId(s);
      if (pid >= 0 && pid < n && (pid != sp_->unk_id() || s == sp_->IdToPiece(sp_->unk_id()))) {
        id = pid;
        text = s;
      }
    };
    adopt("bos_token", specialIds_.bos, specialIds_.bosText);
    adopt("eos_token", specialIds_.eos, specialIds_.eosText);
    adopt("pad_token", specialIds_.pad, specialIds_.padText);
  }

  std::vector<std::string> specials;
  for (int id = 0; id < n; ++id) {
    if (sp_->IsControl(id) || sp_->IsUnknown(id)) {
      specials.push_back(sp_->IdToPiece(id));
      specialIdsByIndex_.push_back(id);
    }
  }
  splitter_ = SpecialTokenSplitter(specials);
  // The splitter drops empty strings; rebuild the id table in its order.
  specialIdsByIndex_.clear();
  for (const auto& s : splitter_.specials()) specialIdsByIndex_.push_back(sp_->PieceToId(s));
}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

void SentencePieceTokenizer::encodePlain(std::string_view text, int64_t offset, Encoding& out) const {
  if (text.empty()) return;
  auto proto = sp_->EncodeAsImmutableProto(text);
  const size_t n = proto.pieces_size();
  for (size_t i = 0; i < n; ++i) {
    auto p = proto.pieces(int(i));
    out.ids.push_back(int32_t(p.id()));
    out.tokens.push_back(p.piece());
    out.offsets.push_back({offset + int64_t(p.begin()), offset + int64_t(p.end())});
    out.special.push_back(sp_->IsControl(int(p.id())) ? 1 : 0);
  }
}

Encoding SentencePieceTokenizer::encode(std::string_view text, const EncodeOptions& options) const {
  Encoding out;
  auto pushSpecial = [&](int32_t id, ByteSpan span) {
    out.ids.push_back(id);
    out.tokens.push_back(sp_->IdToPiece(id));
    out.offsets.push_back(span);
    out.special.push_back(1);
  };
  if (options.addSpecialTokens && addBos_ && specialIds_.bos) pushSpecial(*specialIds_.bos, {0, 0});
  if (options.splitSpecialTokens) {
    encodePlain(text, 0, out);
  } else {
    for (const TextChunk& c : splitter_.split(text)) {
      if (c.specialIndex >= 0)
        pushSpecial(specialIdsByIndex_[size_t(c.specialIndex)], {c.offset, c.offset + int64_t(c.text.size())});
      else
        encodePlain(c.text, c.offset, out);
    }
  }
  if (options.addSpecialTokens && addEos_ && specialIds_.eos) {
    int64_t end = int64_t(text.size());
    pushSpecial(*specialIds_.eos, {end, end});
  }
  return out;
}

std::string SentencePieceTokenizer::decode(std::span<const int32_t> ids, bool skipSpecialTokens) const {
  std::string out;
  std::vector<int> run;
  auto flush = [&]() {
    if (run.empty()) return;
    std::string s;
    sp_->Decode(run, &s);
    out += s;
    run.clear();
  };
  const int n = sp_->GetPieceSize();
  for (int32_t id : ids) {
    if (id < 0 || id >= n) continue;
    if (sp_->IsControl(id)) {
      flush();
      if (!skipSpecialTokens) out += sp_->IdToPiece(id);
      continue;
    }
    run.push_back(id);
  }
  flush();
  return out;
}

std::string SentencePieceTokenizer::idToToken(int32_t id) const {
  if (id < 0 || id >= sp_->GetPieceSize()) return {};
  return sp_->IdToPiece(id);
}

std::optional<int32_t> SentencePieceTokenizer::tokenToId(std::string_view token) const {
  int id = sp_->PieceToId(token);
  if (id == sp_->unk_id() && token != sp_->IdToPiece(sp_->unk_id())) return std::nullopt;
  return id;
}

std::string SentencePieceTokenizer::displayText(int32_t id) const {
  if (id < 0 || id >= sp_->GetPieceSize()) return "<invalid>";
  std::string piece = sp_->IdToPiece(id);
  if (sp_->IsControl(id) || sp_->IsUnknown(id)) return piece;
  if (sp_->IsByte(id) && piece.size() == 6) { // "<0xNN>"
    int v = std::stoi(piece.substr(3, 2), nullptr, 16);
    if (v < 0x80) return std::string(1, char(v));
    return piece;
  }
  std::string out;
  for (size_t i = 0; i < piece.size();) {
    if (piece.compare(i, 3, "\xE2\x96\x81") == 0) {
      out += ' ';
      i += 3;
    } else
      out += piece[i++];
  }
  return out;
}

int32_t SentencePieceTokenizer::vocabSize() const { return sp_->GetPieceSize(); }

bool SentencePieceTokenizer::isSpecial(int32_t id) const {
  if (id < 0 || id >= sp_->GetPieceSize()) return false;
  return sp_->IsControl(id) || sp_->IsUnknown(id);
}

} // namespace maskscope
