// Position flags. Padding is read from the collator's meta when it has it; a dump only has its
// masks, so a 0 in attention_mask is padding, and with an all-ones mask the leading/trailing run of
// pad_token_id is (the only way to see pads that a buggy collator attends).
#include "core/mask/PositionFlags.h"
#include "core/util/Error.h"

namespace maskscope {

IntGrid effectivePositionIds(const Batch& b) {
  if (b.positionIds.sameShape(b.inputIds)) return b.positionIds;
  IntGrid g(b.batchSize(), b.length(), 0);
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t t = 0; t < g.cols; ++t) g.at(r, t) = t;
  return g;
}

std::vector<PositionFlags> positionFlagsForRow(const Batch& b, int64_t r, MaskSemantics semantics) {
  const std::vector<int64_t> seg = segmentIdsForRow(b, r, semantics); // checks r
  const int64_t T = b.length();
  const bool haveMask = b.attentionMask.sameShape(b.inputIds);
  const bool haveLabels = b.labels.sameShape(b.inputIds);
  const bool havePositions = b.positionIds.sameShape(b.inputIds);
  const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T;
  std::vector<PositionFlags> out(static_cast<size_t>(T));
  bool anyZero = false;
  for (int64_t t = 0; t < T; ++t) {
    PositionFlags& f = out[size_t(t)];
    f.attended = !haveMask || b.attentionMask.at(r, t) != 0;
    anyZero |= !f.attended;
    f.label = haveLabels ? b.labels.at(r, t) : kIgnoreIndex;
    f.graded = f.label != kIgnoreIndex;
    f.segment = seg[size_t(t)];
    f.position = havePositions ? b.positionIds.at(r, t) : t;
    if (haveMeta)
      f.padding = b.meta[size_t(r)][size_t(t)].kind == PositionKind::Padding;
    else
      f.padding = !f.attended;
  }
  for (int64_t t = 0; t + 1 < T; ++t) out[size_t(t)].predicts = out[size_t(t + 1)].graded;
  if (!haveMeta && !anyZero && b.padTokenId && T > 0) {
    // All-ones mask: the runs of pad ids at either end are padding (right or left padding).
    const int64_t pad = *b.padTokenId;
    for (int64_t t = T - 1; t > 0 && b.inputIds.at(r, t) == pad; --t) out[size_t(t)].padding = true;
    if (b.inputIds.at(r, 0) == pad)
      for (int64_t t = 0; t < T - 1 && b.inputIds.at(r, t) == pad; ++t) out[size_t(t)].padding = true;
  }
  return out;
}

} // namespace maskscope
