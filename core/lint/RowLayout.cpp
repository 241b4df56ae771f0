// Padding and example boundaries of a batch row; see RowLayout.h for the sources used.
#include "core/lint/RowLayout.h"
#include "core/mask/PackedSegments.h"
#include "core/mask/PaddingDetection.h"

namespace maskscope {

std::string RowLayout::boundaries() const {
  std::string s;
  for (size_t i = 1; i < examples.size(); ++i) {
    if (i == 9 && examples.size() > 10) return s + ", ... (" + std::to_string(examples.size() - 1) + " in all)";
    s += (s.empty() ? (examples.size() > 2 ? "positions " : "position ") : ", ") + std::to_string(examples[i].begin);
  }
  return s;
}

RowLayout rowLayout(const Batch& b, int64_t r) {
  const int64_t T = b.length();
  RowLayout L;
  // Collator metadata (not roles recovered from a dump's ids) says where the examples are.
  const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T && !b.rolesRecovered;
  const bool haveMask = b.attentionMask.sameShape(b.inputIds);
  L.pad = paddingOfRow(b, r); // the one padding rule, shared with the views and the loss
  for (int64_t t = 0; t < T; ++t) {
    if (L.pad[size_t(t)]) {
      ++L.padCount;
      continue;
    }
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
    // Raw dumps: the one segment-recovery rule of core/mask (segment ids in attention_mask, else
    // position ids restarting at 0), trimmed to the real positions found above.
    bool segmentIds = false;
    if (haveMask)
      for (int64_t t = 0; t < T && !segmentIds; ++t) segmentIds = b.attentionMask.at(r, t) > 1;
    for (const Segment& s : segmentsOfRow(b, r)) {
      int64_t begin = s.begin, end = s.end;
      while (begin < end && L.pad[size_t(begin)]) ++begin;
      while (end > begin && L.pad[size_t(end - 1)]) --end;
      if (begin < end) L.examples.push_back({begin, end, -1});
    }
    if (L.examples.size() >= 2) {
      bool resets = false;
      if (!segmentIds && b.positionIds.sameShape(b.inputIds))
        for (size_t i = 1; i < L.examples.size() && !resets; ++i)
          resets = b.positionIds.at(r, L.examples[i].begin) == 0;
      // Stated by the dump (cu_seq_lens) when they differ from what the ids, mask and positions show.
      bool stated = false;
      if (size_t(r) < b.segments.size() && b.segments[size_t(r)].size() >= 2) {
        const std::vector<Segment> recovered = recoveredSegmentsOfRow(b, r);
        stated = recovered.size() != b.segments[size_t(r)].size();
        for (size_t i = 0; i < recovered.size() && !stated; ++i)
          stated = recovered[i].begin != b.segments[size_t(r)][i].begin;
      }
      L.segmentSource = stated       ? SegmentSource::CuSeqLens
                        : segmentIds ? SegmentSource::MaskSegmentIds
                        : resets     ? SegmentSource::PositionResets
                                     : SegmentSource::Separators;
      return L;
    }
    L.examples.clear();
  }
  L.examples.push_back({L.firstReal, L.endReal, src});
  return L;
}

} // namespace maskscope
