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
using WordCache = std::unordered_map<std::string, std::vector<WordToken>, StringHash, std::equal_to<>>;
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

} // namespace

BpeModel::BpeModel(const Json& model, const JsonPath& at) : instance_(nextInstance++) {
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

  const Json& vocab = member(model, "vocab", at);
  const JsonPath vat = at / "vocab";
  if (!vocab.is_object()) vat.fail("expected an object of token -> id");
  if (vocab.size() > kMaxVocab) vat.fail("vocabulary too large (" + std::to_string(vocab.size()) + " entries)");
  vocab_.reserve(vocab.size());
  int64_t maxId = -1;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    int64_t id = getInt(it.value(), vat / it.key(), 0, kMaxId);
    maxId = std::max(maxId, id);
    vocab_.emplace(it.key(), int32_t(id));
  }
  if (maxId >= 0 && size_t(maxId) > vocab.size() * 4 + 4096)
    vat.fail("token ids out of range: highest id " + std::to_string(maxId) + " for " + std::to_string(vocab.size()) +
             " tokens");
  vocabR_.resize(size_t(maxId + 1));
  for (const auto& [tok, id] : vocab_) vocabR_[size_t(id)] = tok;

  const Json& merges = member(model, "merges", at);
  const JsonPath mat = at / "merges";
  if (!merges.is_array()) mat.fail("expected a list of merges");
  if (merges.size() > kMaxMerges) mat.fail("too many merges (" + std::to_string(merges.size()) + ")");
  merges_.reserve(merges.size());
  std::string a, b;
  for (size_t i = 0; i < merges.size(); ++i) {
    const Json& m = merges[i];
    if (m.is_string()) {
      const std::string& line = m.get_ref<const std::string&>();
      size_t sp = line.find(' ');
      if (sp == std::string::npos || line.find(' ', sp + 1) != std::string::npos)
        mat[i].fail("merge \"" + line + "\" is not two tokens separated by one space");
      a = line.substr(0, sp);
      b = line.substr(sp + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    } else {
      mat[i].fail("a merge must be \"a b\" or [\"a\", \"b\"]");
    }
    auto ia = vocab_.find(a), ib = vocab_.find(b);
    if (ia == vocab_.end()) mat[i].fail("merge part \"" + a + "\" is not in the vocabulary");
    if (ib == vocab_.end()) mat[i].fail("merge part \"" + b + "\" is not in the vocabulary");
    std::string merged = a;
    merged += !prefix_.empty() && b.starts_with(prefix_) ? b.substr(prefix_.size()) : b;
    auto im = vocab_.find(merged);
    if (im == vocab_.end()) mat[i].fail("merge result \"" + merged + "\" is not in the vocabulary");
    uint64_t key = (uint64_t(uint32_t(ia->second)) << 32) | uint32_t(ib->second);
    merges_[key] = Merge{int32_t(i), im->second}; // a repeated pair keeps its last rank, as Rust's map
  }

  if (!unkToken_.empty()) {
    auto it = vocab_.find(unkToken_);
    if (it != vocab_.end()) unkId_ = it->second;
  }
  const ByteLevelTable& table = ByteLevelTable::get();
  char name[8];
  for (int i = 0; i < 256; ++i) {
    auto it = vocab_.find(table.toUnicode[size_t(i)]);
    byteLevelIds_[size_t(i)] = it == vocab_.end() ? -1 : it->second;
    std::snprintf(name, sizeof name, "<0x%02X>", i);
    it = vocab_.find(std::string_view(name));
    fallbackIds_[size_t(i)] = it == vocab_.end() ? -1 : it->second;
    if (i < 128) {
      it = vocab_.find(std::string(1, char(i)));
      asciiIds_[size_t(i)] = it == vocab_.end() ? -1 : it->second;
    }
  }
}

BpeModel::~BpeModel() = default;

std::optional<int32_t> BpeModel::tokenToId(std::string_view token) const {
  auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string* BpeModel::idToToken(int32_t id) const {
  if (id < 0 || size_t(id) >= vocabR_.size()) return nullptr;
  return &vocabR_[size_t(id)];
}

const BpeModel::Merge* BpeModel::findMerge(int32_t a, int32_t b) const {
  auto it = merges_.find((uint64_t(uint32_t(a)) << 32) | uint32_t(b));
  return it == merges_.end() ? nullptr : &it->second;
}

void BpeModel::tokenize(std::string_view word, bool byteLevel, std::vector<WordToken>& out) const {
  if (word.empty()) return;
  const bool cacheable = word.size() <= kCacheMaxWordBytes;
  WordCache* cache = nullptr;
  if (cacheable) {
    cache = &threadCache(instance_);
    auto it = cache->find(word);
    if (it != cache->end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
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
    auto it = vocab_.find(mapped);
    if (it != vocab_.end()) {
      out.push_back({it->second, 0, int32_t(word.size())});
      done = true;
    }
  }
  if (!done) mergeWord(word, byteLevel, out);
  if (cacheable) {
    if (cache->size() >= kCacheMaxEntries) cache->clear();
    cache->emplace(std::string(word), std::vector<WordToken>(out.begin() + std::ptrdiff_t(first), out.end()));
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
    const size_t len = byteLevel ? 1 : std::min<size_t>(size_t(utf8::sequenceLength(static_cast<unsigned char>(word[i]))),
                                                        word.size() - i);
    const unsigned char c0 = static_cast<unsigned char>(word[i]);
    const bool isFirst = i == 0, isLast = i + len >= word.size();
    int32_t id = -1;
    if (plain && byteLevel) id = byteLevelIds_[c0];
    else if (plain && c0 < 0x80) id = asciiIds_[c0];
    else {
      s.clear();
      if (!isFirst) s += prefix_;
      if (byteLevel) s += table.toUnicode[c0];
      else s.append(word.substr(i, len));
      if (isLast) s += suffix_;
      auto it = vocab_.find(s);
      if (it != vocab_.end()) id = it->second;
    }
    if (plain && id < 0) { // rebuild s for the fallback paths below
      s.clear();
      if (byteLevel) s += table.toUnicode[c0];
      else s.append(word.substr(i, len));
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
        if (unkPending >= 0 && fuseUnk_) unkLen += int32_t(len);
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

  std::vector<HeapItem> heap;
  heap.reserve(symbols.size());
  auto greater = [](const HeapItem& x, const HeapItem& y) { return x > y; };
  for (size_t i = 0; i + 1 < symbols.size(); ++i)
    if (const Merge* m = findMerge(symbols[i].id, symbols[i + 1].id))
      heap.push_back({m->rank, int32_t(i), m->newId});
  std::make_heap(heap.begin(), heap.end(), greater);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), greater);
    HeapItem top = heap.back();
    heap.pop_back();
    Symbol& cur = symbols[size_t(top.pos)];
    if (cur.len == 0 || cur.next < 0) continue;
    const int32_t nextPos = cur.next;
    const Symbol right = symbols[size_t(nextPos)];
    const Merge* m = findMerge(cur.id, right.id);
    if (!m || m->newId != top.newId) continue; // stale entry
    cur.id = top.newId;
    cur.len += right.len;
    cur.next = right.next;
    symbols[size_t(nextPos)].len = 0; // merged into cur
    if (right.next >= 0) symbols[size_t(right.next)].prev = top.pos;
    if (cur.prev >= 0)
      if (const Merge* pm = findMerge(symbols[size_t(cur.prev)].id, cur.id))
        heap.push_back({pm->rank, cur.prev, pm->newId}), std::push_heap(heap.begin(), heap.end(), greater);
    if (cur.next >= 0)
      if (const Merge* nm = findMerge(cur.id, symbols[size_t(cur.next)].id))
        heap.push_back({nm->rank, top.pos, nm->newId}), std::push_heap(heap.begin(), heap.end(), greater);
  }
  int32_t pos = 0;
  for (const Symbol& sym : symbols) {
    if (sym.len == 0) continue;
    out.push_back({sym.id, pos, pos + sym.len});
    pos += sym.len;
  }
}

} // namespace maskscope::hf
