// Padding detection for raw batch rows; see PaddingDetection.h for the rule.
#include "core/mask/PaddingDetection.h"

namespace maskscope {

std::vector<uint8_t> detectPaddingOfRow(const Batch& b, int64_t r, std::optional<int64_t> padId) {
  const int64_t T = b.length();
  std::vector<uint8_t> pad(size_t(T), 0);
  bool maskHasZero = false;
  if (b.attentionMask.sameShape(b.inputIds))
    for (int64_t t = 0; t < T; ++t)
      if (b.attentionMask.at(r, t) == 0) {
        pad[size_t(t)] = 1;
        maskHasZero = true;
      }
  if (maskHasZero || !padId) return pad;
  int64_t e = T;
  while (e > 0 && b.inputIds.at(r, e - 1) == *padId) --e;
  if (e < T && e > 0 && b.eosTokenId && *b.eosTokenId == *padId) ++e;
  for (int64_t t = e; t < T; ++t) pad[size_t(t)] = 1;
  int64_t s = 0;
  while (s < e && b.inputIds.at(r, s) == *padId) ++s;
  if (s > 0 && s < e && b.bosTokenId && *b.bosTokenId == *padId) --s;
  for (int64_t t = 0; t < s; ++t) pad[size_t(t)] = 1;
  return pad;
}

std::vector<uint8_t> paddingOfRow(const Batch& b, int64_t r) {
  const size_t T = size_t(b.length());
  if (r >= 0 && size_t(r) < b.meta.size() && b.meta[size_t(r)].size() == T) {
    std::vector<uint8_t> pad(T, 0);
    for (size_t t = 0; t < T; ++t) pad[t] = b.meta[size_t(r)][t].kind == PositionKind::Padding;
    return pad;
  }
  return detectPaddingOfRow(b, r, b.padTokenId);
}

} // namespace maskscope
