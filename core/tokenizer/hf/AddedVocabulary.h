// The added tokens of tokenizer.json ("<|im_end|>", "<s>", Gemma's "\n\n"): found in the text
// before anything else runs, leftmost-longest across all of them, with their single_word, lstrip,
// rstrip and normalized flags, as the Rust library's AddedVocabulary.
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

struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool special = false, singleWord = false, lstrip = false, rstrip = false, normalized = true;
};

// A piece of text after splitting: an added token (id >= 0) or text for the pipeline (id < 0).
struct AddedSplit {
  int32_t id;
  size_t begin, end;
};

class AddedVocabulary {
public:
  void add(AddedToken token); // later duplicates of the same content replace earlier ones
  // Builds the matchers; normalizedContents[i] is token i's content after the normalizer.
  void build(const std::vector<std::string>& normalizedContents);

  const std::vector<AddedToken>& tokens() const { return tokens_; }
  const AddedToken* byId(int32_t id) const;
  std::optional<int32_t> idOf(std::string_view content) const;
  bool hasNormalized() const { return normalizedTrie_.nodes.size() > 1; }

  // Splits text at tokens with normalized=false (raw) or normalized=true (already normalized).
  // skipSpecial: special tokens still match (and consume text) but stay text, as Rust's
  // encode_special_tokens does.
  std::vector<AddedSplit> split(std::string_view text, bool normalizedSet, bool skipSpecial) const;

private:
  struct Trie {
    struct Node {
      std::vector<std::pair<unsigned char, int32_t>> edges; // sorted by byte
      int32_t token = -1;                                   // index into tokens_
    };
    std::vector<Node> nodes{Node{}};
    std::array<bool, 256> first{};
    void insert(std::string_view s, int32_t token);
    int32_t child(int32_t node, unsigned char c) const;
  };
  std::vector<AddedToken> tokens_;
  std::unordered_map<int32_t, size_t> byId_;
  std::unordered_map<std::string, size_t> byContent_;
  Trie rawTrie_, normalizedTrie_;
};

} // namespace maskscope::hf
