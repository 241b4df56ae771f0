// Segment recovery. Segment ids win over position ids: a mask holding values above 1 says exactly
// where each example is; otherwise a position id of 0 after the row's first real position starts
// a new example (the rule transformers uses to build FlashAttention's cu_seqlens), and so does a
// separator followed by a conversation start (naive packing, core/mask/PackingSeparators.h).
#include "core/mask/PackedSegments.h"
#include "core/mask/PackingSeparators.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

std::vector<Segment> segmentsOfRow(const Batch& b, int64_t r) {
  if (r < 0 || r >= b.batchSize()) throw Error("row " + std::to_string(r) + " is outside the batch");
  // Boundaries the dump states itself (cu_seq_lens of a flattened row) win over any recovery.
  const bool dump = b.meta.empty() || b.rolesRecovered;
  if (dump && size_t(r) < b.segments.size() && b.segments[size_t(r)].size() >= 2) return b.segments[size_t(r)];
  return recoveredSegmentsOfRow(b, r);
}

std::vector<Segment> recoveredSegmentsOfRow(const Batch& b, int64_t r) {
  if (r < 0 || r >= b.batchSize()) throw Error("row " + std::to_string(r) + " is outside the batch");
  const int64_t T = b.length();
  const bool haveMask = b.attentionMask.sameShape(b.inputIds);
  const bool havePositions = b.positionIds.sameShape(b.inputIds);
  auto mask = [&](int64_t t) { return haveMask ? b.attentionMask.at(r, t) : int64_t(1); };
  bool segmentIds = false;
  for (int64_t t = 0; t < T && !segmentIds; ++t) segmentIds = mask(t) > 1;
  const std::vector<int64_t> separated = segmentIds ? std::vector<int64_t>{} : separatorBoundaries(b, r);

  std::vector<Segment> out;
  for (int64_t t = 0; t < T; ++t) {
    const int64_t m = mask(t);
    if (m == 0) continue;                             // padding
    bool starts = out.empty() || out.back().end != t; // first real position, or after padding
    if (!starts) {
      if (segmentIds)
        starts = m != mask(t - 1);
      else
        starts =
            (havePositions && b.positionIds.at(r, t) == 0) || std::binary_search(separated.begin(), separated.end(), t);
    }
    if (starts)
      out.push_back({t, t + 1, -1});
    else
      out.back().end = t + 1;
  }
  if (out.size() < 2) out.clear();
  return out;
}

void deriveSegments(Batch& b) {
  b.segments.resize(size_t(std::max<int64_t>(b.batchSize(), 0)));
  for (int64_t r = 0; r < b.batchSize(); ++r) b.segments[size_t(r)] = segmentsOfRow(b, r); // keeps stated ones
}

} // namespace maskscope
