// Decodes a row's graded targets (see GradedText.h; which positions count is core/mask's gradedAt).
#include "core/table/GradedText.h"
#include "core/mask/GradedPositions.h"
#include "core/tokenizer/Tokenizer.h"

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

} // namespace maskscope
