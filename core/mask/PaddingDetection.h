// Which positions of a raw batch row (a dump, no collator metadata) are padding. One rule for the
// linter, the loss comparison and the views, so all call the same positions "pads".
#pragma once
#include "core/data/Batch.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace maskscope {

// [T]: 1 = padding. attention_mask zeros when the mask has any; otherwise (no mask, or all ones as
// buggy collators write it) the leading and trailing runs of the pad id — when pad == eos the first
// trailing one is the EOS that ends the text, when pad == bos the last leading one is the BOS.
std::vector<uint8_t> detectPaddingOfRow(const Batch& batch, int64_t row, std::optional<int64_t> padId);
// The one padding rule every view, the linter and the loss use: the collator's metadata when the
// row has it (PositionKind::Padding), else detectPaddingOfRow with the batch's pad_token_id.
std::vector<uint8_t> paddingOfRow(const Batch& batch, int64_t row);

} // namespace maskscope
