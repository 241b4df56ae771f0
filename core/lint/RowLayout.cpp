// Padding and example boundaries of a batch row; see RowLayout.h for the sources used.
#include "core/lint/RowLayout.h"

namespace maskscope {

RowLayout rowLayout(const Batch& b, int64_t r, std::optional<int64_t> padId) {
  const int64_t T = b.length();
  RowLayout L;
  L.pad.assign(size_t(T), 0);
  const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T;
  const bool haveMask = b.attentionMask.sameShape(b.inputIds);
  const bool havePos = b.positionIds.sameShape(b.inputIds);
  if (haveMeta) {
    for (int64_t t = 0; t < T; ++t) L.pad[size_t(t)] = b.meta[size_t(r)][size_t(t)].kind == PositionKind::Padding;
  } else {
    bool maskHasZero = false;
    if (haveMask)
      for (int64_t t = 0; t < T; ++t)
        if (b.attentionMask.at(r, t) == 0) { L.pad[size_t(t)] = 1; maskHasZero = true; }
    // A mask without zeros says nothing about padding (all ones): fall back to runs of the pad id
    // at either end. When pad == eos the first trailing one is the EOS that ends the text, and
    // when pad == bos the last leading one is the BOS that starts it.
    if (!maskHasZero && padId) {
      int64_t e = T;
      while (e > 0 && b.inputIds.at(r, e - 1) == *padId) --e;
      if (e < T && b.eosTokenId && *b.eosTokenId == *padId) ++e;
      for (int64_t t = e; t < T; ++t) L.pad[size_t(t)] = 1;
      int64_t s = 0;
      while (s < e && b.inputIds.at(r, s) == *padId) ++s;
      if (s > 0 && b.bosTokenId && *b.bosTokenId == *padId) --s;
      for (int64_t t = 0; t < s; ++t) L.pad[size_t(t)] = 1;
    }
  }
  for (int64_t t = 0; t < T; ++t) {
    if (L.pad[size_t(t)]) { ++L.padCount; continue; }
    if (L.firstReal < 0) L.firstReal = t;
    L.endReal = t + 1;
  }
  if (L.firstReal < 0) return L;

  if (haveMeta && size_t(r) < b.segments.size() && !b.segments[size_t(r)].empty()) {
    for (const Segment& s : b.segments[size_t(r)]) L.examples.push_back({s.begin, s.end, s.sourceRow});
    L.segmentSource = SegmentSource::Collator;
    return L;
  }
  const long src = size_t(r) < b.sourceRows.size() ? b.sourceRows[size_t(r)] : -1;
  if (!haveMeta) {
    bool segmentIds = false;
    if (haveMask)
      for (int64_t t = 0; t < T; ++t) segmentIds = segmentIds || b.attentionMask.at(r, t) > 1;
    if (segmentIds) {
      // Runs of one segment id; padding (0) ends a run.
      int64_t start = -1, id = 0;
      for (int64_t t = 0; t <= T; ++t) {
        int64_t v = t < T && !L.pad[size_t(t)] ? b.attentionMask.at(r, t) : 0;
        if (start >= 0 && v != id) { L.examples.push_back({start, t, -1}); start = -1; }
        if (v != 0 && start < 0) { start = t; id = v; }
      }
      L.segmentSource = SegmentSource::MaskSegmentIds;
      return L;
    }
    if (havePos) {
      // A real position whose id does not continue the previous real one starts an example.
      int64_t start = L.firstReal;
      for (int64_t t = L.firstReal + 1; t < L.endReal; ++t) {
        if (L.pad[size_t(t)]) continue;
        if (b.positionIds.at(r, t) != b.positionIds.at(r, t - 1) + 1 || L.pad[size_t(t - 1)]) {
          L.examples.push_back({start, t, -1});
          start = t;
        }
      }
      L.examples.push_back({start, L.endReal, -1});
      if (L.examples.size() >= 2) { L.segmentSource = SegmentSource::PositionResets; return L; }
      L.examples.clear();
    }
  }
  L.examples.push_back({L.firstReal, L.endReal, src});
  return L;
}

} // namespace maskscope
