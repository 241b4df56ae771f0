// Validates a tokenizer.model before libsentencepiece sees it: the library trusts the double-array
// trie of a precompiled_charsmap (normalizer_spec, denormalizer_spec) and reads wherever its units
// point, so a corrupt one crashes inside the library. Here every reachable trie unit is checked.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace maskscope {

// The largest precompiled_charsmap trie accepted (real ones, nmt_nfkc_cf included, are under 300 KB).
inline constexpr size_t kMaxCharsmapTrieBytes = size_t(2) << 20;

// Throws Error naming `source` and the field (normalizer_spec.precompiled_charsmap, ...) when a
// charsmap is corrupt: a trie size past the blob, a unit whose children lie outside the trie, a leaf
// whose value lies outside the normalized strings or has no NUL after it, a path with more matches
// than the library's result buffer (32), or a cycle. Bytes that are not a
// protobuf message are left to the library (it refuses them with a status, without crashing).
void checkSentencePieceModel(std::string_view serializedModel, const std::string& source);

// Every precompiled_charsmap of a serialized ModelProto, in file order, with its field
// ("normalizer_spec.precompiled_charsmap"); the views point into `model`. Empty when the bytes are
// no protobuf message.
struct CharsmapBlob {
  std::string field;
  std::string_view blob;
};
std::vector<CharsmapBlob> precompiledCharsmaps(std::string_view model);

// The charsmap blob alone (<uint32 trie bytes><trie units><NUL-separated normalized strings>);
// field names it in the message. Exposed for tests and the fuzz target.
void checkPrecompiledCharsmap(std::string_view blob, const std::string& source, const std::string& field);

} // namespace maskscope
