// Decodes a row's graded targets (see GradedText.h; which positions count is core/mask's gradedAt).
#include "core/table/GradedText.h"
#include "core/mask/GradedPositions.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/JsonString.h"

#include <algorithm>
#include <vector>

namespace maskscope {

std::string gradedTextOfRow(const Batch& b, int64_t row, const Tokenizer* tokenizer) {
  const int64_t vocab = tokenizer ? tokenizer->vocabSize() : 0;
  return gradedText(b, row, [&](const std::vector<int64_t>& ids) {
    const bool decodable =
        tokenizer && std::all_of(ids.begin(), ids.end(), [&](int64_t id) { return id >= 0 && id < vocab; });
    if (decodable) {
      const std::vector<int32_t> narrow(ids.begin(), ids.end());
      return tokenizer->decode(narrow);
    }
    std::string out;
    for (int64_t id : ids) out += (out.empty() ? "#" : " #") + std::to_string(id);
    return out;
  });
}

namespace {

// The length of the "<...>" unit starting at text[i] (at most 64 bytes, no '<' or whitespace inside), or 0.
size_t unitAt(std::string_view text, size_t i) {
  if (text[i] != '<') return 0;
  for (size_t j = i + 1; j < text.size() && j < i + 64; ++j) {
    const char c = text[j];
    if (c == '>') return j - i + 1;
    if (c == '<' || c == ' ' || c == '\n' || c == '\t' || c == '\r') return 0;
  }
  return 0;
}

} // namespace

std::string quotedGradedText(std::string_view text) {
  constexpr size_t kFoldFrom = 4;
  std::string out;
  size_t plainFrom = 0, i = 0;
  auto flushPlain = [&](size_t to) {
    if (to > plainFrom) out += (out.empty() ? "" : " ") + jsonString(text.substr(plainFrom, to - plainFrom));
  };
  while (i < text.size()) {
    const size_t n = unitAt(text, i);
    if (n == 0) {
      ++i;
      continue;
    }
    const std::string_view unit = text.substr(i, n);
    size_t copies = 1;
    while (i + (copies + 1) * n <= text.size() && text.substr(i + copies * n, n) == unit) ++copies;
    if (copies < kFoldFrom) {
      i += n;
      continue;
    }
    flushPlain(i);
    out += (out.empty() ? "" : " ") + std::string(unit) + "\u00d7" + std::to_string(copies);
    i += copies * n;
    plainFrom = i;
  }
  flushPlain(text.size());
  return out.empty() ? jsonString(text) : out;
}

} // namespace maskscope
