// The BPE model of tokenizer.json: vocab, ranked merges, byte fallback, unk fusing, ignore_merges,
// subword prefix/suffix. Words merge lowest rank first with ties broken by position, as the Rust
// library's priority queue does. tokenize() is const and thread-safe (the word cache is per thread).
#pragma once
#include "core/tokenizer/hf/FlatStringMap.h"
#include "core/tokenizer/hf/HfJson.h"
#include "core/tokenizer/hf/TokenizerJsonReader.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace maskscope::hf {

// One model token of a word: id and the byte range [begin, end) it covers in the word.
struct WordToken {
  int32_t id;
  int32_t begin, end;
};

class BpeModel {
public:
  // Parses the "model" object; its vocab and merges come from raw (the SAX reader) when raw has
  // them, else from the object. Throws Error for unsupported types and inconsistent files.
  BpeModel(const Json& model, const JsonPath& at, RawModel* raw = nullptr);
  ~BpeModel();

  // Tokenizes one pre-token. byteLevel: the word's bytes are seen through GPT-2's byte table.
  void tokenize(std::string_view word, bool byteLevel, std::vector<WordToken>& out) const;

  std::optional<int32_t> tokenToId(std::string_view token) const;
  const std::string* idToToken(int32_t id) const; // nullptr when unknown
  int32_t size() const { return int32_t(vocabR_.size()); }
  const std::string& unkToken() const { return unkToken_; }

private:
  struct Merge {
    int32_t rank;
    int32_t newId;
  };
  void tokenizeWord(std::string_view word, bool byteLevel, std::vector<WordToken>& out) const;
  void mergeWord(std::string_view word, bool byteLevel, std::vector<WordToken>& out) const;
  void findSafeSplits();
  void loadMerges(const RawModel& raw, const JsonPath& at);
  const Merge* findMerge(int32_t a, int32_t b) const;

  FlatStringMap<int32_t> vocab_;
  std::vector<std::string> vocabR_;
  // Merge ranks keyed by the pair (left id << 32 | right id): open addressing, linear probing.
  struct MergeSlot {
    uint64_t key = ~uint64_t(0);
    Merge merge{};
  };
  std::vector<MergeSlot> mergeTable_;
  uint64_t mergeMask_ = 0;
  void putMerge(uint64_t key, Merge m);
  std::string unkToken_;
  std::optional<int32_t> unkId_;
  std::string prefix_, suffix_;
  bool byteFallback_ = false, fuseUnk_ = false, ignoreMerges_ = false;
  std::array<int32_t, 256> byteLevelIds_; // byte -> id of its GPT-2 character, -1 when absent
  std::array<int32_t, 128> asciiIds_;     // ASCII char -> id, -1 when absent
  std::array<int32_t, 256> fallbackIds_;  // byte -> id of "<0xNN>", -1 when absent
  uint64_t instance_;                     // key of this model's per-thread word cache
  // SentencePiece-style vocabularies (Llama-2, Gemma) see whole lines as one word. When no token
  // holds "X▁" for a character X, no merge can join across "X▁", so the word is cut before such a
  // "▁" and each part goes through the word cache: same tokens, far less work.
  bool splitBeforeMeta_ = false;
  std::vector<char32_t> metaJoiners_; // the X of tokens holding "X▁" (X not ▁): no cut after them
};

} // namespace maskscope::hf
