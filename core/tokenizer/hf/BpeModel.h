// The BPE model of tokenizer.json: vocab, ranked merges, byte fallback, unk fusing, ignore_merges,
// subword prefix/suffix. Words merge lowest rank first with ties broken by position, as the Rust
// library's priority queue does. tokenize() is const and thread-safe (the word cache is per thread).
#pragma once
#include "core/tokenizer/hf/HfJson.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace maskscope::hf {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using VocabMap = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

// One model token of a word: id and the byte range [begin, end) it covers in the word.
struct WordToken {
  int32_t id;
  int32_t begin, end;
};

class BpeModel {
public:
  // Parses the "model" object. Throws Error for unsupported types and inconsistent files.
  BpeModel(const Json& model, const JsonPath& at);
  ~BpeModel();

  // Tokenizes one pre-token. byteLevel: the word's bytes are seen through GPT-2's byte table.
  void tokenize(std::string_view word, bool byteLevel, std::vector<WordToken>& out) const;

  std::optional<int32_t> tokenToId(std::string_view token) const;
  const std::string* idToToken(int32_t id) const; // nullptr when unknown
  int32_t size() const { return int32_t(vocabR_.size()); }
  std::optional<int32_t> unkId() const { return unkId_; }
  const std::string& unkToken() const { return unkToken_; }

private:
  struct Merge {
    int32_t rank;
    int32_t newId;
  };
  void mergeWord(std::string_view word, bool byteLevel, std::vector<WordToken>& out) const;
  const Merge* findMerge(int32_t a, int32_t b) const;

  VocabMap vocab_;
  std::vector<std::string> vocabR_;
  std::unordered_map<uint64_t, Merge> merges_;
  std::string unkToken_;
  std::optional<int32_t> unkId_;
  std::string prefix_, suffix_;
  bool byteFallback_ = false, fuseUnk_ = false, ignoreMerges_ = false;
  std::array<int32_t, 256> byteLevelIds_;   // byte -> id of its GPT-2 character, -1 when absent
  std::array<int32_t, 128> asciiIds_;       // ASCII char -> id, -1 when absent
  std::array<int32_t, 256> fallbackIds_;    // byte -> id of "<0xNN>", -1 when absent
  uint64_t instance_;                       // key of this model's per-thread word cache
};

} // namespace maskscope::hf
