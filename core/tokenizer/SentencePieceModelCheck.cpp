// The model check: a minimal protobuf wire reader finds every precompiled_charsmap (ModelProto field
// 3 normalizer_spec and 5 denormalizer_spec, NormalizerSpec field 2), then the charsmap is walked as
// sentencepiece's normalizer.cc and darts-clone's commonPrefixSearch read it.
//
// Darts-clone unit (uint32): has_leaf = bit 8; value = bits 0..30; label = bit 31 | bits 0..7;
// offset = (unit >> 10) << ((unit & (1 << 9)) >> 6). A search at node n with byte c reads unit
// (n ^ offset(n)) ^ c; it follows it when that unit's label is c, and when the unit has a leaf reads
// the value at (child ^ offset(child)), an index into the normalized strings, read up to a NUL.
#include "core/tokenizer/SentencePieceModelCheck.h"
#include "core/util/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace maskscope {

namespace {

constexpr int kMaxTrieResults = 32; // sentencepiece's Normalizer::kMaxTrieResultsSize (a stack array)

uint32_t le32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
}

bool hasLeaf(uint32_t u) { return ((u >> 8) & 1) == 1; }
uint32_t valueOf(uint32_t u) { return u & ((1U << 31) - 1); }
uint32_t labelOf(uint32_t u) { return u & ((1U << 31) | 0xFF); }
uint32_t offsetOf(uint32_t u) { return (u >> 10) << ((u & (1U << 9)) >> 6); }

// Protobuf wire format: just enough to find length-delimited fields. nullopt = malformed.
class WireReader {
public:
  explicit WireReader(std::string_view bytes) : s_(bytes) {}
  bool done() const { return pos_ >= s_.size(); }

  std::optional<uint64_t> varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && pos_ < s_.size(); shift += 7) {
      const auto b = static_cast<unsigned char>(s_[pos_++]);
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    return std::nullopt;
  }

  // Reads one field; for wire type 2 sets payload. False when malformed.
  bool field(uint32_t& number, uint32_t& wireType, std::string_view& payload, int depth = 0) {
    const std::optional<uint64_t> tag = varint();
    if (!tag || (*tag >> 3) == 0 || (*tag >> 3) > UINT32_MAX) return false;
    number = uint32_t(*tag >> 3);
    wireType = uint32_t(*tag & 7);
    switch (wireType) {
    case 0:
      return varint().has_value();
    case 1:
      return skip(8);
    case 5:
      return skip(4);
    case 2: {
      const std::optional<uint64_t> n = varint();
      if (!n || *n > s_.size() - pos_) return false;
      payload = s_.substr(pos_, size_t(*n));
      pos_ += size_t(*n);
      return true;
    }
    case 3: { // a group: skip its fields up to the matching end-group tag
      if (depth > 64) return false;
      for (;;) {
        if (done()) return false;
        uint32_t n = 0, w = 0;
        std::string_view p;
        if (!field(n, w, p, depth + 1)) return false;
        if (w == 4) return n == number;
      }
    }
    case 4:
      return depth > 0; // ends the enclosing group
    default:
      return false;
    }
  }

private:
  bool skip(size_t n) {
    if (n > s_.size() - pos_) return false;
    pos_ += n;
    return true;
  }
  std::string_view s_;
  size_t pos_ = 0;
};

// Every payload of length-delimited field `wanted` in a message; nullopt when it is malformed.
std::optional<std::vector<std::string_view>> fieldsOf(std::string_view message, uint32_t wanted) {
  std::vector<std::string_view> out;
  WireReader r(message);
  while (!r.done()) {
    uint32_t number = 0, wireType = 0;
    std::string_view payload;
    if (!r.field(number, wireType, payload)) return std::nullopt;
    if (wireType == 4) return std::nullopt; // an end-group tag outside a group
    if (number == wanted && wireType == 2) out.push_back(payload);
  }
  return out;
}

[[noreturn]] void corrupt(const std::string& source, const std::string& field, const std::string& why) {
  SourceLocation at{source};
  at.field = field;
  throw Error("corrupt precompiled_charsmap (" + field + "): " + why + "; libsentencepiece would read outside it", at);
}

} // namespace

void checkPrecompiledCharsmap(std::string_view blob, const std::string& source, const std::string& field) {
  if (blob.empty()) return; // no charsmap: identity normalization
  auto fail = [&](const std::string& why) { corrupt(source, field, why); };
  // <uint32 trie size in bytes><trie><normalized strings>, as Normalizer::DecodePrecompiledCharsMap.
  if (blob.size() <= 4) fail("it is " + std::to_string(blob.size()) + " bytes, too short for its trie size");
  const uint32_t trieBytes = le32(blob.data());
  if (trieBytes >= blob.size() - 4)
    fail("its trie size " + std::to_string(trieBytes) + " leaves no room for the normalized strings in its " +
         std::to_string(blob.size()) + " bytes");
  if (trieBytes > kMaxCharsmapTrieBytes)
    fail("its trie of " + std::to_string(trieBytes) + " bytes is over the limit of " +
         std::to_string(kMaxCharsmapTrieBytes) + " bytes");
  const size_t units = trieBytes / 4;
  if (units == 0) fail("its trie holds no unit (the search reads unit 0)");
  const char* trie = blob.data() + 4;
  const std::string_view normalized = blob.substr(4 + size_t(trieBytes));
  auto unit = [&](size_t i) { return le32(trie + 4 * i); };

  // Depth-first over the units a search can reach. Darts-clone shares suffixes (a DAWG), so a unit
  // may be reached from several; it must never be reached from itself (a cycle). For each unit the
  // most rules a search can still match below it (the library's result buffer holds 32).
  enum : uint8_t { kNew, kOpen, kDone };
  std::vector<uint8_t> state(units, kNew);
  std::vector<uint8_t> below(units, 0); // most matches on a path below the unit (kDone units)
  struct Frame {
    size_t node;
    size_t base;
    uint32_t next; // the next byte to try
  };
  auto open = [&](size_t node) -> Frame {
    const size_t base = node ^ offsetOf(unit(node));
    if ((base | 0xFF) >= units)
      fail("unit " + std::to_string(node) + " points to units " + std::to_string(base & ~size_t(0xFF)) + ".." +
           std::to_string(base | 0xFF) + ", past the trie's " + std::to_string(units) + " units");
    state[node] = kOpen;
    return {node, base, 0};
  };
  std::vector<Frame> stack{open(0)};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == 256) { // every child done: the unit's own count
      state[f.node] = kDone;
      const size_t node = f.node;
      stack.pop_back();
      if (!stack.empty()) {
        const size_t parent = stack.back().node;
        const int total = below[node] + (hasLeaf(unit(node)) ? 1 : 0);
        if (total > kMaxTrieResults)
          fail("a path through unit " + std::to_string(node) + " matches more than " + std::to_string(kMaxTrieResults) +
               " rules (the library keeps 32)");
        below[parent] = uint8_t(std::max<int>(below[parent], total));
      }
      continue;
    }
    const uint32_t c = f.next++;
    const size_t child = f.base ^ c;
    const uint32_t u = unit(child);
    if (labelOf(u) != c) continue;
    if (state[child] == kOpen) fail("unit " + std::to_string(child) + " is reached from itself (the trie has a cycle)");
    if (state[child] == kDone) {
      const int total = below[child] + (hasLeaf(u) ? 1 : 0);
      below[f.node] = uint8_t(std::max<int>(below[f.node], total));
      continue;
    }
    if (hasLeaf(u)) {
      const size_t leaf = child ^ offsetOf(u);
      if (leaf >= units)
        fail("unit " + std::to_string(child) + " has its leaf at unit " + std::to_string(leaf) + ", past the " +
             std::to_string(units) + " units");
      const uint32_t value = valueOf(unit(leaf));
      if (value >= normalized.size() || normalized.find('\0', value) == std::string_view::npos)
        fail("the leaf at unit " + std::to_string(leaf) + " points to byte " + std::to_string(value) +
             " of the normalized strings, which hold " + std::to_string(normalized.size()) +
             " bytes with no NUL after it");
    }
    stack.push_back(open(child)); // f is not used after this (the vector may move)
  }
}

std::vector<CharsmapBlob> precompiledCharsmaps(std::string_view model) {
  std::vector<CharsmapBlob> out;
  for (const auto& [number, name] :
       {std::pair<uint32_t, const char*>{3, "normalizer_spec"}, {5, "denormalizer_spec"}}) {
    const std::optional<std::vector<std::string_view>> found = fieldsOf(model, number);
    if (!found) return {}; // not a protobuf message: LoadFromSerializedProto refuses it
    // Protobuf merges repeated occurrences of a message field (the last charsmap wins): keep each.
    for (std::string_view spec : *found) {
      const std::optional<std::vector<std::string_view>> maps = fieldsOf(spec, 2);
      if (!maps) return {};
      for (std::string_view blob : *maps) out.push_back({std::string(name) + ".precompiled_charsmap", blob});
    }
  }
  return out;
}

void checkSentencePieceModel(std::string_view model, const std::string& source) {
  for (const CharsmapBlob& c : precompiledCharsmaps(model)) checkPrecompiledCharsmap(c.blob, source, c.field);
}

} // namespace maskscope
