// Position flags. Padding is paddingOfRow's (the collator's meta, else attention_mask zeros, else
// the leading/trailing runs of pad_token_id), the same rule the linter and the loss use.
#include "core/mask/PositionFlags.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/RowFacts.h"
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
  const std::vector<uint8_t> pad = paddingOfRow(b, r); // the one padding rule (PaddingDetection.h)
  std::vector<PositionFlags> out(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    PositionFlags& f = out[size_t(t)];
    f.attended = !haveMask || b.attentionMask.at(r, t) != 0;
    f.label = haveLabels ? b.labels.at(r, t) : kIgnoreIndex;
    f.graded = gradedAt(b, r, t);
    f.segment = seg[size_t(t)];
    f.position = havePositions ? b.positionIds.at(r, t) : t;
    f.padding = pad[size_t(t)] != 0;
  }
  for (int64_t t = 0; t + 1 < T; ++t) out[size_t(t)].predicts = out[size_t(t + 1)].graded;
  return out;
}

} // namespace maskscope
