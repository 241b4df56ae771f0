// Tokenizer over a SentencePiece tokenizer.model (Llama-2, Mistral v0.1, Gemma, the demo model).
// Special-token strings in text are split out first, as transformers' slow tokenizers do.
#pragma once
#include "core/tokenizer/SpecialTokenSplitter.h"
#include "core/tokenizer/Tokenizer.h"

#include <memory>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace maskscope {

class SentencePieceTokenizer final : public Tokenizer {
public:
  // serializedModel: the bytes of a tokenizer.model; source: its path or "builtin:demo".
  // configJson: the sibling tokenizer_config.json text, or empty.
  SentencePieceTokenizer(std::string_view serializedModel, std::string source, std::string_view configJson = {});
  ~SentencePieceTokenizer() override;

  Encoding encode(std::string_view text, const EncodeOptions& options = {}) const override;
  std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens = false) const override;
  std::string idToToken(int32_t id) const override;
  std::optional<int32_t> tokenToId(std::string_view token) const override;
  std::string displayText(int32_t id) const override;
  int32_t vocabSize() const override;
  bool isSpecial(int32_t id) const override;
  SpecialTokenIds specialTokens() const override { return specialIds_; }
  std::vector<std::string> specialTokenStrings() const override { return splitter_.specials(); }
  std::string kind() const override { return "sentencepiece"; }
  std::string source() const override { return source_; }

private:
  void encodePlain(std::string_view text, int64_t offset, Encoding& out) const;

  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  std::string source_;
  SpecialTokenIds specialIds_;
  SpecialTokenSplitter splitter_{{}};
  std::vector<int32_t> specialIdsByIndex_; // id of splitter_.specials()[i]
  bool addBos_ = true;
  bool addEos_ = false;
};

} // namespace maskscope
