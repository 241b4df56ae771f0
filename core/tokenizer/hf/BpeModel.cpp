// BPE: loading (vocab, merges in "a b" and ["a","b"] forms, consistency checks) and the merge loop
// (a min-heap of adjacent pairs keyed by (rank, position), stale entries skipped, as in Rust).
#include "core/tokenizer/hf/BpeModel.h"

#include "core/tokenizer/hf/ByteLevelTable.h"
#include "core/util/Utf8.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>

namespace maskscope::hf {
namespace {

constexpr size_t kMaxVocab = size_t(8) << 20;
constexpr int64_t kMaxId = (int64_t(1) << 24) - 1;
constexpr size_t kMaxMerges = size_t(16) << 20;
constexpr size_t kCacheMaxWordBytes = 256;
constexpr size_t kCacheMaxEntries = 200000;

std::atomic<uint64_t> nextInstance{1};

// Per-thread word caches, one per model instance (a few models at most are in use at once).
// A cached word's tokens live in one arena: value = (first token, count).
struct WordCache {
  FlatStringMap<std::pair<uint32_t, uint32_t>> map;
  std::vector<WordToken> tokens;
  void clear() {
    map.clear();
    tokens.clear();
  }
};
WordCache& threadCache(uint64_t instance) {
  thread_local std::vector<std::pair<uint64_t, std::unique_ptr<WordCache>>> caches;
  for (auto& [id, cache] : caches)
    if (id == instance) return *cache;
  if (caches.size() >= 8) caches.erase(caches.begin());
  caches.emplace_back(instance, std::make_unique<WordCache>());
  return *caches.back().second;
}

struct Symbol {
  int32_t id;
  int32_t prev, next;
  int32_t len; // bytes of the word; 0 once merged into its left neighbour
};

struct HeapItem {
  int32_t rank, pos, newId;
  bool operator>(const HeapItem& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

// Applies merges lowest rank first (a heap of adjacent pairs; stale entries skipped), as the Rust
// implementation does. Merged-away symbols keep len 0. findMerge(a, b): the Merge of ids a, b or null.
template <class FindMerge> void applyMerges(std::vector<Symbol>& symbols, const FindMerge& findMerge) {
  std::vector<HeapItem> heap;
  heap.reserve(symbols.size());
  auto greater = [](const HeapItem& x, const HeapItem& y) { return x > y; };
  for (size_t i = 0; i + 1 < symbols.size(); ++i)
    if (const auto* m = findMerge(symbols[i].id, symbols[i + 1].id)) heap.push_back({m->rank, int32_t(i), m->newId});
  std::make_heap(heap.begin(), heap.end(), greater);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), greater);
    HeapItem top = heap.back();
    heap.pop_back();
    Symbol& cur = symbols[size_t(top.pos)];
    if (cur.len == 0 || cur.next < 0) continue;
    const int32_t nextPos = cur.next;
    const Symbol right = symbols[size_t(nextPos)];
    const auto* m = findMerge(cur.id, right.id);
    if (!m || m->newId != top.newId) continue; // stale entry
    cur.id = top.newId;
    cur.len += right.len;
    cur.next = right.next;
    symbols[size_t(nextPos)].len = 0; // merged into cur
    if (right.next >= 0) symbols[size_t(right.next)].prev = top.pos;
    if (cur.prev >= 0)
      if (const auto* pm = findMerge(symbols[size_t(cur.prev)].id, cur.id))
        heap.push_back({pm->rank, cur.prev, pm->newId}), std::push_heap(heap.begin(), heap.end(), greater);
    if (cur.next >= 0)
      if (const auto* nm = findMerge(cur.id, symbols[size_t(cur.next)].id))
        heap.push_back({nm->rank, top.pos, nm->newId}), std::push_heap(heap.begin(), heap.end(), greater);
  }
}

// model.vocab / model.merges from the DOM, in the form the SAX reader collects them.
RawModel rawModelFromDom(const Json& model, const JsonPath& at) {
  RawModel out;
  const Json& vocab = member(model, "vocab", at);
  if (!vocab.is_object()) (at / "vocab").fail("expected an object of token -> id");
  const Json& merges = member(model, "merges", at);
  if (!merges.is_array()) (at / "merges").fail("expected a list of merges");
  for (auto it = vocab.begin(); it != vocab.end(); ++it)
    out.vocab.emplace_back(
        it.key(), it.value().is_number_integer() &&
                          !(it.value().is_number_unsigned() && it.value().get<uint64_t>() > uint64_t(INT64_MAX))
                      ? it.value().get<int64_t>()
                      : -1);
  for (const Json& m : merges) {
    RawMerge r;
    if (m.is_string()) {
      r.a = m.get<std::string>();
      r.isLine = true;
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      r.a = m[0].get<std::string>();
      r.b = m[1].get<std::string>();
    } else
      r.invalid = true;
    out.merges.push_back(std::move(r));
  }
  return out;
}

} // namespace

// The merge table: each pair's rank and result, every part and result checked against the vocabulary.
void BpeModel::loadMerges(const RawModel& raw, const JsonPath& mat) {
  if (raw.merges.size() > kMaxMerges) mat.fail("too many merges (" + std::to_string(raw.merges.size()) + ")");
  size_t cap = 16;
  while (cap < raw.merges.size() * 2) cap <<= 1;
  mergeTable_.assign(cap, MergeSlot{});
  mergeMask_ = cap - 1;
  std::string_view a, b;
  std::string merged;
  for (size_t i = 0; i < raw.merges.size(); ++i) {
    const RawMerge& m = raw.merges[i];
    if (m.invalid) mat[i].fail("a merge must be \"a b\" or [\"a\", \"b\"]");
    if (m.isLine) {
      const std::string& line = m.a;
      size_t sp = line.find(' ');
      if (sp == std::string::npos || line.find(' ', sp + 1) != std::string::npos)
        mat[i].fail("merge \"" + line + "\" is not two tokens separated by one space");
      a = std::string_view(line).substr(0, sp);
      b = std::string_view(line).substr(sp + 1);
    } else {
      a = m.a;
      b = m.b;
    }
    const int32_t* ia = vocab_.find(a);
    const int32_t* ib = vocab_.find(b);
    if (!ia) mat[i].fail("merge part \"" + std::string(a) + "\" is not in the vocabulary");
    if (!ib) mat[i].fail("merge part \"" + std::string(b) + "\" is not in the vocabulary");
    merged.assign(a);
    merged += !prefix_.empty() && b.starts_with(prefix_) ? b.substr(prefix_.size()) : b;
    const int32_t* im = vocab_.find(merged);
    if (!im) mat[i].fail("merge result \"" + merged + "\" is not in the vocabulary");
    uint64_t key = (uint64_t(uint32_t(*ia)) << 32) | uint32_t(*ib);
    putMerge(key, Merge{int32_t(i), *im}); // a repeated pair keeps its last rank, as Rust's map
  }
}

BpeModel::BpeModel(const Json& model, const JsonPath& at, RawModel* raw) : instance_(nextInstance++) {
  if (const Json* t = optMember(model, "type")) {
    std::string type = getString(*t, at / "type");
    if (type != "BPE") (at / "type").fail("unsupported model: " + type + " (only BPE is implemented)");
  } else if (!optMember(model, "merges")) {
    at.fail("unsupported model: no \"type\" and no \"merges\"");
  }
  if (const Json* d = optMember(model, "dropout"))
    if (!d->is_number()) (at / "dropout").fail("expected a number or null");
  prefix_ = optString(model, "continuing_subword_prefix", at);
  suffix_ = optString(model, "end_of_word_suffix", at);
  byteFallback_ = optBool(model, "byte_fallback", at, false);
  fuseUnk_ = optBool(model, "fuse_unk", at, false);
  ignoreMerges_ = optBool(model, "ignore_merges", at, false);
  unkToken_ = optString(model, "unk_token", at);

  RawModel fromDom;
  if (!raw || !raw->haveVocab || !raw->haveMerges) { // DOM input: bring it to the raw form
    fromDom = rawModelFromDom(model, at);
    raw = &fromDom;
  } else {
    if (!member(model, "vocab", at).is_object()) (at / "vocab").fail("expected an object of token -> id");
    if (!member(model, "merges", at).is_array()) (at / "merges").fail("expected a list of merges");
  }

  const JsonPath vat = at / "vocab";
  if (raw->vocab.size() > kMaxVocab)
    vat.fail("vocabulary too large (" + std::to_string(raw->vocab.size()) + " entries)");
  vocab_.reserve(raw->vocab.size());
  int64_t maxId = -1;
  for (const auto& [tok, id] : raw->vocab) {
    if (id < 0 || id > kMaxId)
      (vat / tok).fail(id < 0 ? "token id out of range or not an integer"
                              : "token id " + std::to_string(id) + " out of range");
    maxId = std::max(maxId, id);
    vocab_.put(tok, int32_t(id));
  }
  if (maxId >= 0 && size_t(maxId) > raw->vocab.size() * 4 + 4096)
    vat.fail("token ids out of range: highest id " + std::to_string(maxId) + " for " +
             std::to_string(raw->vocab.size()) + " tokens");
  vocabR_.resize(size_t(maxId + 1));
  vocab_.forEach([&](std::string_view tok, int32_t id) { vocabR_[size_t(id)] = std::string(tok); });

  loadMerges(*raw, at / "merges");
  findSafeSplits();
  if (!unkToken_.empty()) {
    if (const int32_t* id = vocab_.find(unkToken_)) unkId_ = *id;
  }
  const ByteLevelTable& table = ByteLevelTable::get();
  char name[8];
  for (int i = 0; i < 256; ++i) {
    const int32_t* id = vocab_.find(table.toUnicode[size_t(i)]);
    byteLevelIds_[size_t(i)] = id ? *id : -1;
    std::snprintf(name, sizeof name, "<0x%02X>", i);
    id = vocab_.find(std::string_view(name));
    fallbackIds_[size_t(i)] = id ? *id : -1;
    if (i < 128) {
      id = vocab_.find(std::string(1, char(i)));
      asciiIds_[size_t(i)] = id ? *id : -1;
    }
  }
}

BpeModel::~BpeModel() = default;

std::optional<int32_t> BpeModel::tokenToId(std::string_view token) const {
  const int32_t* id = vocab_.find(token);
  if (!id) return std::nullopt;
  return *id;
}

const std::string* BpeModel::idToToken(int32_t id) const {
  if (id < 0 || size_t(id) >= vocabR_.size()) return nullptr;
  return &vocabR_[size_t(id)];
}

namespace {
inline uint64_t mixKey(uint64_t k) { return (k ^ (k >> 29)) * 0x9E3779B97F4A7C15ULL >> 20; }
} // namespace

void BpeModel::putMerge(uint64_t key, Merge m) {
  for (uint64_t i = mixKey(key) & mergeMask_;; i = (i + 1) & mergeMask_) {
    MergeSlot& slot = mergeTable_[i];
    if (slot.key == key || slot.key == ~uint64_t(0)) {
      slot.key = key;
      slot.merge = m;
      return;
    }
  }
}

const BpeModel::Merge* BpeModel::findMerge(int32_t a, int32_t b) const {
  const uint64_t key = (uint64_t(uint32_t(a)) << 32) | uint32_t(b);
  for (uint64_t i = mixKey(key) & mergeMask_;; i = (i + 1) & mergeMask_) {
    const MergeSlot& slot = mergeTable_[i];
    if (slot.key == key) return &slot.merge;
    if (slot.key == ~uint64_t(0)) return nullptr;
  }
}

void BpeModel::findSafeSplits() {
  static constexpr std::string_view kMeta = "\xE2\x96\x81";
  if (!prefix_.empty() || !suffix_.empty() || ignoreMerges_ || !vocab_.find(kMeta)) return;
  bool ok = true;
  vocab_.forEach([&](std::string_view tok, int32_t) {
    for (size_t pos = tok.find(kMeta, 1); pos != std::string_view::npos && ok; pos = tok.find(kMeta, pos + 1)) {
      size_t k = pos - 1;
      while (k > 0 && (static_cast<unsigned char>(tok[k]) & 0xC0) == 0x80) --k;
      size_t j = k;
      char32_t prev = utf8::decode(tok, j);
      if (prev == 0x2581) continue;
      if (std::find(metaJoiners_.begin(), metaJoiners_.end(), prev) == metaJoiners_.end()) metaJoiners_.push_back(prev);
      if (metaJoiners_.size() > 64) ok = false;
    }
  });
  splitBeforeMeta_ = ok;
}

void BpeModel::tokenize(std::string_view word, bool byteLevel, std::vector<WordToken>& out) const {
  if (word.empty()) return;
  if (!splitBeforeMeta_ || byteLevel || word.size() < 16) {
    tokenizeWord(word, byteLevel, out);
    return;
  }
  size_t start = 0;
  char32_t prev = 0x2581;
  for (size_t i = 0; i < word.size();) {
    size_t j = i;
    char32_t c = utf8::decode(word, j);
    if (c == 0x2581 && prev != 0x2581 && i > start &&
        std::find(metaJoiners_.begin(), metaJoiners_.end(), prev) == metaJoiners_.end()) {
      const size_t first = out.size();
      tokenizeWord(word.substr(start, i - start), false, out);
      for (size_t k = first; k < out.size(); ++k) {
        out[k].begin += int32_t(start);
        out[k].end += int32_t(start);
      }
      start = i;
    }
    prev = c;
    i = j;
  }
  const size_t first = out.size();
  tokenizeWord(word.substr(start), false, out);
  for (size_t k = first; k < out.size(); ++k) {
    out[k].begin += int32_t(start);
    out[k].end += int32_t(start);
  }
}

void BpeModel::tokenizeWord(std::string_view word, bool byteLevel, std::vector<WordToken>& out) const {
  if (word.empty()) return;
  const bool cacheable = word.size() <= kCacheMaxWordBytes;
  WordCache* cache = nullptr;
  if (cacheable) {
    cache = &threadCache(instance_);
    if (const auto* hit = cache->map.find(word)) {
      auto b = cache->tokens.begin() + std::ptrdiff_t(hit->first);
      out.insert(out.end(), b, b + std::ptrdiff_t(hit->second));
      return;
    }
  }
  const size_t first = out.size();
  bool done = false;
  if (ignoreMerges_) {
    std::string mapped;
    if (byteLevel) {
      const ByteLevelTable& table = ByteLevelTable::get();
      for (unsigned char c : word) mapped += table.toUnicode[c];
    } else {
      mapped.assign(word);
    }
    if (const int32_t* id = vocab_.find(mapped)) {
      out.push_back({*id, 0, int32_t(word.size())});
      done = true;
    }
  }
  if (!done) mergeWord(word, byteLevel, out);
  if (cacheable) {
    if (cache->map.size() >= kCacheMaxEntries) cache->clear();
    cache->map.put(word, {uint32_t(cache->tokens.size()), uint32_t(out.size() - first)});
    cache->tokens.insert(cache->tokens.end(), out.begin() + std::ptrdiff_t(first), out.end());
  }
}

void BpeModel::mergeWord(std::string_view word, bool byteLevel, std::vector<WordToken>& out) const {
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  auto add = [&](int32_t id, int32_t len) {
    int32_t n = int32_t(symbols.size());
    symbols.push_back({id, n - 1, n + 1, len});
  };
  const bool plain = prefix_.empty() && suffix_.empty();
  const ByteLevelTable& table = ByteLevelTable::get();
  int32_t unkPending = -1, unkLen = 0; // a pending unk token and its byte length
  std::string s;
  for (size_t i = 0; i < word.size();) {
    const size_t len = byteLevel ? 1
                                 : std::min<size_t>(size_t(utf8::sequenceLength(static_cast<unsigned char>(word[i]))),
                                                    word.size() - i);
    const unsigned char c0 = static_cast<unsigned char>(word[i]);
    const bool isFirst = i == 0, isLast = i + len >= word.size();
    int32_t id = -1;
    if (plain && byteLevel)
      id = byteLevelIds_[c0];
    else if (plain && c0 < 0x80)
      id = asciiIds_[c0];
    else {
      s.clear();
      if (!isFirst) s += prefix_;
      if (byteLevel)
        s += table.toUnicode[c0];
      else
        s.append(word.substr(i, len));
      if (isLast) s += suffix_;
      if (const int32_t* v = vocab_.find(s)) id = *v;
    }
    if (plain && id < 0) { // rebuild s for the fallback paths below
      s.clear();
      if (byteLevel)
        s += table.toUnicode[c0];
      else
        s.append(word.substr(i, len));
    }
    if (id >= 0) {
      if (unkPending >= 0) {
        add(unkPending, unkLen);
        unkPending = -1;
      }
      add(id, int32_t(len));
    } else {
      bool fellBack = false;
      if (byteFallback_) {
        bool all = true;
        for (unsigned char b : s) all = all && fallbackIds_[b] >= 0;
        if (all) {
          for (unsigned char b : s) add(fallbackIds_[b], 1);
          fellBack = true;
        }
      }
      if (!fellBack && unkId_) {
        if (unkPending >= 0 && fuseUnk_)
          unkLen += int32_t(len);
        else {
          if (unkPending >= 0) add(unkPending, unkLen);
          unkPending = *unkId_;
          unkLen = int32_t(len);
        }
      }
    }
    i += len;
  }
  if (unkPending >= 0) add(unkPending, unkLen);
  if (symbols.empty()) return;
  symbols.back().next = -1;

  applyMerges(symbols, [this](int32_t a, int32_t b) { return findMerge(a, b); });
  int32_t pos = 0;
  for (const Symbol& sym : symbols) {
    if (sym.len == 0) continue;
    out.push_back({sym.id, pos, pos + sym.len});
    pos += sym.len;
  }
}

} // namespace maskscope::hf
