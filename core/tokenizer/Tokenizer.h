// The tokenizer interface shared by SentencePiece (tokenizer.model) and Hugging Face
// (tokenizer.json) implementations. Offsets are UTF-8 byte ranges into the input text.
#pragma once
#include "core/util/ByteSpan.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope {

struct Encoding {
  std::vector<int32_t> ids;
  std::vector<std::string> tokens; // raw vocabulary strings ("▁Hello", "Ġworld", "<0x0A>"); see hasTokenStrings
  std::vector<ByteSpan> offsets;   // byte range of each token in the input text
  std::vector<uint8_t> special;    // 1 where the token is a special/control token
  bool keepTokenStrings = true;    // set by encode() from EncodeOptions::tokenStrings
  size_t size() const { return ids.size(); }
  // False when the tokenizer left `tokens` empty (EncodeOptions::tokenStrings = false): each token's
  // string is then Tokenizer::idToToken(ids[i]).
  bool hasTokenStrings() const { return tokens.size() == ids.size(); }
};

struct EncodeOptions {
  bool addSpecialTokens = false;   // BOS/EOS as the tokenizer's post-processor adds them
  bool splitSpecialTokens = false; // true: "<|im_end|>" in text is ordinary text
  // False: a tokenizer whose token strings are its vocabulary's (Hugging Face) may leave
  // Encoding::tokens empty, saving ~32 bytes a token (tokenize --json on megabytes of text).
  bool tokenStrings = true;
};

struct SpecialTokenIds {
  std::optional<int32_t> bos, eos, pad, unk;
  std::string bosText, eosText, padText, unkText;
};

class Tokenizer {
public:
  virtual ~Tokenizer() = default;

  virtual Encoding encode(std::string_view text, const EncodeOptions& options = {}) const = 0;
  virtual std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens = false) const = 0;
  // The vocabulary string of id ("▁the"), empty for ids out of range.
  virtual std::string idToToken(int32_t id) const = 0;
  virtual std::optional<int32_t> tokenToId(std::string_view token) const = 0;
  // What a person reads for one token: the decoder applied to it alone ("the" with a leading space).
  virtual std::string displayText(int32_t id) const = 0;
  virtual int32_t vocabSize() const = 0;
  virtual bool isSpecial(int32_t id) const = 0;
  virtual SpecialTokenIds specialTokens() const = 0;
  // Strings that, found in text, become one special token (unless splitSpecialTokens).
  virtual std::vector<std::string> specialTokenStrings() const = 0;
  virtual std::string kind() const = 0;   // "sentencepiece" or "huggingface"
  virtual std::string source() const = 0; // path or "builtin:demo"
};

// Resolves a --tokenizer SPEC: builtin:demo, a tokenizer.model, a tokenizer.json, or a model
// folder holding either (tokenizer.json preferred, as transformers' fast tokenizer). Throws Error.
std::shared_ptr<Tokenizer> loadTokenizer(const std::string& spec);

} // namespace maskscope
