// Position flags. Padding is the one rule of PaddingDetection (paddingOfRow): the collator's meta
// when it has it; for a dump a 0 in attention_mask, and with an all-ones mask the leading/trailing
// run of pad_token_id (the only way to see pads that a buggy collator attends).
#include "core/mask/PositionFlags.h"
#include "core/mask/PaddingDetection.h"
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
  const std::vector<uint8_t> padding = paddingOfRow(b, r);
  std::vector<PositionFlags> out(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    PositionFlags& f = out[size_t(t)];
    f.attended = !haveMask || b.attentionMask.at(r, t) != 0;
    f.label = haveLabels ? b.labels.at(r, t) : kIgnoreIndex;
    f.graded = f.label != kIgnoreIndex;
    f.segment = seg[size_t(t)];
    f.position = havePositions ? b.positionIds.at(r, t) : t;
    f.padding = padding[size_t(t)] != 0;
  }
  for (int64_t t = 0; t + 1 < T; ++t) out[size_t(t)].predicts = out[size_t(t + 1)].graded;
  return out;
}

} // namespace maskscope
