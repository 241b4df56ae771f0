// Naive-packing boundaries from the token content; see PackingSeparators.h for the rules.
#include "core/mask/PackingSeparators.h"
#include "core/mask/PaddingDetection.h"

#include <algorithm>
#include <set>

namespace maskscope {

namespace {

// Tokens that open a conversation: the BOS and the first real token of every row.
std::set<int64_t> conversationStarts(const Batch& b) {
  std::set<int64_t> starts;
  if (b.bosTokenId) starts.insert(*b.bosTokenId);
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    const std::vector<uint8_t> pad = paddingOfRow(b, r);
    for (int64_t t = 0; t < b.length(); ++t)
      if (!pad[size_t(t)]) {
        starts.insert(b.inputIds.at(r, t));
        break;
      }
  }
  return starts;
}

bool templateJoinsTurns(const Batch& b, int64_t prev, int64_t cur) {
  return std::find(b.turnJoins.begin(), b.turnJoins.end(), std::pair<int64_t, int64_t>{prev, cur}) != b.turnJoins.end();
}

} // namespace

std::vector<int64_t> separatorBoundaries(const Batch& b, int64_t r) {
  std::vector<int64_t> out;
  if (r < 0 || r >= b.batchSize()) return out;
  const int64_t T = b.length();
  const std::vector<uint8_t> pad = paddingOfRow(b, r);
  const std::set<int64_t> starts = conversationStarts(b);
  const bool padIsSeparator = b.padTokenId && (!b.eosTokenId || *b.padTokenId != *b.eosTokenId) &&
                              (!b.bosTokenId || *b.padTokenId != *b.bosTokenId);
  bool seenReal = false; // a real token before t-1: the separator closes an example
  for (int64_t t = 1; t < T; ++t) {
    const int64_t prev = b.inputIds.at(r, t - 1), cur = b.inputIds.at(r, t);
    if (pad[size_t(t - 1)] || pad[size_t(t)]) {
      seenReal = seenReal || !pad[size_t(t - 1)];
      continue;
    }
    const bool joinsTurns = templateJoinsTurns(b, prev, cur);
    const bool eosThenStart = b.eosTokenId && prev == *b.eosTokenId && starts.count(cur) && !joinsTurns;
    const bool bosMidRow = b.bosTokenId && cur == *b.bosTokenId && prev != cur && !joinsTurns;
    const bool padThenText = padIsSeparator && prev == *b.padTokenId && cur != *b.padTokenId;
    if (seenReal && (eosThenStart || bosMidRow || padThenText)) out.push_back(t);
    seenReal = true;
  }
  // Where the dump's template says a conversation starts (core/lint/RoleRecovery.h).
  if (size_t(r) < b.conversationStarts.size())
    for (int64_t t : b.conversationStarts[size_t(r)])
      if (t > 0 && t < T && !pad[size_t(t)]) out.push_back(t);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

} // namespace maskscope
