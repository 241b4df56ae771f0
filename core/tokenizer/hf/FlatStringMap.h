// An open-addressing hash map from strings to small values, with every key stored in one arena:
// the vocabulary (150k-260k entries) and the per-thread word cache, where std::unordered_map's
// node chasing dominated encoding time.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope::hf {

inline uint64_t hashBytes(std::string_view s) {
  // FNV-1a over 8-byte words, then a final mix: short keys (most BPE words) cost a few cycles.
  uint64_t h = 0xcbf29ce484222325ULL ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
  if (s.size() > i) std::memcpy(&tail, s.data() + i, s.size() - i);
  h = (h ^ tail) * 0x9E3779B97F4A7C15ULL;
  return h ^ (h >> 29);
}

template <class V> class FlatStringMap {
public:
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    if (cap > slots_.size()) rehash(cap);
  }
  size_t size() const { return size_; }
  void clear() {
    slots_.assign(slots_.size(), Slot{});
    arena_.clear();
    size_ = 0;
  }
  const V* find(std::string_view key) const {
    if (slots_.empty()) return nullptr;
    const uint64_t h = hashBytes(key);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.len == kEmpty) return nullptr;
      if (s.hash == h && s.len == key.size() && std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0)
        return &s.value;
    }
  }
  // Inserts or replaces.
  void put(std::string_view key, const V& value) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    const uint64_t h = hashBytes(key);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.len == kEmpty) {
        s.hash = h;
        s.offset = arena_.size();
        s.len = uint32_t(key.size());
        s.value = value;
        arena_.append(key);
        ++size_;
        return;
      }
      if (s.hash == h && s.len == key.size() && std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0) {
        s.value = value;
        return;
      }
    }
  }
  template <class F> void forEach(F f) const {
    for (const Slot& s : slots_)
      if (s.len != kEmpty) f(std::string_view(arena_.data() + s.offset, s.len), s.value);
  }

private:
  static constexpr uint32_t kEmpty = ~uint32_t(0);
  struct Slot {
    uint64_t hash = 0;
    size_t offset = 0;
    uint32_t len = kEmpty;
    V value{};
  };
  void rehash(size_t cap) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    for (const Slot& s : old) {
      if (s.len == kEmpty) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].len != kEmpty) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::string arena_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

} // namespace maskscope::hf
