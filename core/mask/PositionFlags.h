// Per-position facts derived from any batch (collated here or loaded from a dump): is it padding,
// attended, graded, which example it belongs to, which position id the model uses. Everything a
// view or a lint rule needs without re-deriving masks itself.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/AttentionGrid.h"

#include <vector>

namespace maskscope {

struct PositionFlags {
  bool padding = false;  // a pad by paddingOfRow (core/mask/PaddingDetection.h): the collator says
                         // so, or attention_mask is 0, or (all-ones dumps) a run of pad_token_id
  bool attended = false; // attention_mask != 0: other positions may look at it
  bool graded = false;   // reaches the loss (gradedAt, RowFacts.h): labels != -100 and t >= 1, so the
                         // logits one position earlier are scored on it
  bool predicts = false; // labels[t + 1] != -100: the logits at this position enter the loss
  int64_t label = kIgnoreIndex;
  int64_t segment = 0;  // 0 padding, 1.. the packed example (one segment for unpacked rows)
  int64_t position = 0; // position id the model uses (given, or arange when none)
};

// Position ids as the model uses them: the batch's own, or 0..T-1 in every row when not given
// (transformers' default: cache_position, which counts pads too).
IntGrid effectivePositionIds(const Batch& batch);
std::vector<PositionFlags> positionFlagsForRow(const Batch& batch, int64_t row,
                                               MaskSemantics semantics = MaskSemantics::Eager);

} // namespace maskscope
