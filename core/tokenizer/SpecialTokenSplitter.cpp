// Leftmost-longest special-token matching. The special set is small (tens of strings), so a
// first-byte filter plus direct comparison beats building an automaton.
#include "core/tokenizer/SpecialTokenSplitter.h"

#include <algorithm>

namespace maskscope {

SpecialTokenSplitter::SpecialTokenSplitter(std::vector<std::string> specials) : specials_(std::move(specials)) {
  std::erase_if(specials_, [](const std::string& s) { return s.empty(); });
}

std::vector<TextChunk> SpecialTokenSplitter::split(std::string_view text) const {
  std::vector<TextChunk> chunks;
  bool firstBytes[256] = {};
  for (const auto& s : specials_) firstBytes[static_cast<unsigned char>(s[0])] = true;
  size_t plainStart = 0;
  for (size_t i = 0; i < text.size();) {
    int best = -1;
    if (firstBytes[static_cast<unsigned char>(text[i])]) {
      for (size_t k = 0; k < specials_.size(); ++k) {
        const std::string& s = specials_[k];
        if (text.compare(i, s.size(), s) == 0 && (best < 0 || s.size() > specials_[size_t(best)].size())) best = int(k);
      }
    }
    if (best < 0) {
      ++i;
      continue;
    }
    if (i > plainStart) chunks.push_back({text.substr(plainStart, i - plainStart), int64_t(plainStart), -1});
    const size_t len = specials_[size_t(best)].size();
    chunks.push_back({text.substr(i, len), int64_t(i), best});
    i += len;
    plainStart = i;
  }
  if (plainStart < text.size()) chunks.push_back({text.substr(plainStart), int64_t(plainStart), -1});
  return chunks;
}

} // namespace maskscope
