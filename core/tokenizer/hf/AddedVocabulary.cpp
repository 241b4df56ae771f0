// Added-token matching: a byte trie scanned leftmost-longest, then the Rust library's
// single_word / lstrip / rstrip rules on each match.
#include "core/tokenizer/hf/AddedVocabulary.h"

#include "core/util/Utf8.h"

#include <algorithm>
#include <utf8proc.h>

namespace maskscope::hf {
namespace {

bool isWhitespace(char32_t c) {
  if (c == ' ' || (c >= 0x09 && c <= 0x0D)) return true;
  if (c < 0x80) return false;
  auto cat = utf8proc_category(utf8proc_int32_t(c));
  return c == 0x85 || cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}
bool isWordChar(char32_t c) {
  if (c == '_') return true;
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  auto cat = utf8proc_category(utf8proc_int32_t(c));
  return (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) ||
         (cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO);
}
// The character ending just before pos.
char32_t charBefore(std::string_view s, size_t pos, size_t* start = nullptr) {
  size_t k = pos - 1;
  while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
  if (start) *start = k;
  size_t j = k;
  return utf8::decode(s, j);
}

} // namespace

void AddedVocabulary::Trie::insert(std::string_view s, int32_t token) {
  if (s.empty()) return;
  first[static_cast<unsigned char>(s[0])] = true;
  int32_t node = 0;
  for (unsigned char c : s) {
    int32_t next = child(node, c);
    if (next < 0) {
      next = int32_t(nodes.size());
      auto& edges = nodes[size_t(node)].edges;
      edges.insert(std::lower_bound(edges.begin(), edges.end(), std::make_pair(c, int32_t(-1))), {c, next});
      nodes.emplace_back();
    }
    node = next;
  }
  nodes[size_t(node)].token = token;
}

int32_t AddedVocabulary::Trie::child(int32_t node, unsigned char c) const {
  const auto& edges = nodes[size_t(node)].edges;
  auto it = std::lower_bound(edges.begin(), edges.end(), std::make_pair(c, int32_t(-1)));
  return it != edges.end() && it->first == c ? it->second : -1;
}

void AddedVocabulary::add(AddedToken token) {
  auto it = byContent_.find(token.content);
  if (it != byContent_.end()) {
    byId_.erase(tokens_[it->second].id);
    tokens_[it->second] = token;
    byId_[token.id] = it->second;
    return;
  }
  byContent_[token.content] = tokens_.size();
  byId_[token.id] = tokens_.size();
  tokens_.push_back(std::move(token));
}

void AddedVocabulary::build(const std::vector<std::string>& normalizedContents) {
  rawTrie_ = Trie();
  normalizedTrie_ = Trie();
  for (size_t i = 0; i < tokens_.size(); ++i) {
    if (tokens_[i].normalized && i < normalizedContents.size())
      normalizedTrie_.insert(normalizedContents[i], int32_t(i));
    else
      rawTrie_.insert(tokens_[i].content, int32_t(i));
  }
}

const AddedToken* AddedVocabulary::byId(int32_t id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : &tokens_[it->second];
}

std::optional<int32_t> AddedVocabulary::idOf(std::string_view content) const {
  auto it = byContent_.find(std::string(content));
  if (it == byContent_.end()) return std::nullopt;
  return tokens_[it->second].id;
}

std::vector<AddedSplit> AddedVocabulary::split(std::string_view s, bool normalizedSet, bool skipSpecial) const {
  const Trie& trie = normalizedSet ? normalizedTrie_ : rawTrie_;
  std::vector<AddedSplit> out;
  if (trie.nodes.size() <= 1 || s.empty()) {
    out.push_back({-1, 0, s.size()});
    return out;
  }
  size_t startOffset = 0;
  size_t i = 0;
  while (i < s.size()) {
    if (!trie.first[static_cast<unsigned char>(s[i])]) {
      ++i;
      continue;
    }
    int32_t node = 0, best = -1;
    size_t bestEnd = 0;
    for (size_t j = i; j < s.size(); ++j) {
      node = trie.child(node, static_cast<unsigned char>(s[j]));
      if (node < 0) break;
      if (trie.nodes[size_t(node)].token >= 0) {
        best = trie.nodes[size_t(node)].token;
        bestEnd = j + 1;
      }
    }
    if (best < 0) {
      ++i;
      continue;
    }
    const AddedToken& tok = tokens_[size_t(best)];
    size_t start = i, stop = bestEnd;
    i = bestEnd; // matching resumes after the match whatever happens to it below
    if (skipSpecial && tok.special) continue;
    if (tok.singleWord) {
      bool startSpace = start == 0 || !isWordChar(charBefore(s, start));
      bool stopSpace = true;
      if (stop < s.size()) {
        size_t j = stop;
        stopSpace = !isWordChar(utf8::decode(s, j));
      }
      if (!startSpace || !stopSpace) continue;
    }
    if (tok.lstrip) {
      size_t newStart = start;
      while (newStart > 0) {
        size_t k;
        if (!isWhitespace(charBefore(s, newStart, &k))) break;
        newStart = k;
      }
      start = std::max(newStart, startOffset);
    }
    if (tok.rstrip) {
      while (stop < s.size()) {
        size_t j = stop;
        if (!isWhitespace(utf8::decode(s, j))) break;
        stop = j;
      }
    }
    if (start < startOffset) start = startOffset; // an rstrip overran this match
    if (stop < start) stop = start;
    if (startOffset < start) out.push_back({-1, startOffset, start});
    out.push_back({tok.id, start, stop});
    startOffset = stop;
    i = std::max(i, stop);
  }
  if (startOffset != s.size()) out.push_back({-1, startOffset, s.size()});
  return out;
}

} // namespace maskscope::hf
