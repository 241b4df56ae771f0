// A Hugging Face tokenizer.json as a maskscope Tokenizer: added tokens, normalizer,
// pre-tokenizer, BPE, post-processor and decoder in the library's order. Const and thread-safe.
#pragma once
#include "core/tokenizer/Tokenizer.h"
#include "core/tokenizer/hf/AddedVocabulary.h"
#include "core/tokenizer/hf/BpeModel.h"
#include "core/tokenizer/hf/Decoders.h"
#include "core/tokenizer/hf/HfJson.h"
#include "core/tokenizer/hf/Normalizers.h"
#include "core/tokenizer/hf/PostProcessors.h"
#include "core/tokenizer/hf/PreTokenizers.h"

#include <memory>
#include <string>

namespace maskscope::hf {

class HfTokenizer : public Tokenizer {
public:
  // json: the parsed tokenizer.json; config: its tokenizer_config.json or nullptr.
  // raw: model.vocab/model.merges as the SAX reader collected them (nullptr: read them from json).
  HfTokenizer(const std::string& path, const Json& json, const Json* config, const std::string& configPath,
              RawModel* raw = nullptr);

  Encoding encode(std::string_view text, const EncodeOptions& options = {}) const override;
  std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens = false) const override;
  std::string idToToken(int32_t id) const override;
  std::optional<int32_t> tokenToId(std::string_view token) const override;
  std::string displayText(int32_t id) const override;
  int32_t vocabSize() const override { return vocabSize_; }
  bool isSpecial(int32_t id) const override;
  SpecialTokenIds specialTokens() const override { return specials_; }
  std::vector<std::string> specialTokenStrings() const override;
  std::string kind() const override { return "huggingface"; }
  std::string source() const override { return source_; }

private:
  void encodeText(std::string_view text, int64_t base, bool splitSpecial, Encoding& enc) const;
  void encodePieces(NormalizedText text, Encoding& enc) const;
  void pushAdded(int32_t id, ByteSpan span, Encoding& enc) const;
  void readConfig(const Json& config, const JsonPath& at);
  // An amplifying normalizer as an Error naming this tokenizer file and the normalizer.
  [[noreturn]] void normalizerError(const NormalizerGrowthError& e) const;

  std::string source_;
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> preTokenizer_;
  std::unique_ptr<BpeModel> model_;
  std::unique_ptr<PostProcessor> postProcessor_;
  std::unique_ptr<Decoder> decoder_;
  AddedVocabulary added_;
  bool byteLevel_ = false;
  int32_t vocabSize_ = 0;
  SpecialTokenIds specials_;
};

} // namespace maskscope::hf
