// The rows train_on_responses_only receives, as Unsloth's SFTTrainer preparation leaves them
// (unsloth_zoo/dataset_utils.py sft_prepare_dataset): pre-tokenized rows as they are (input_ids,
// attention_mask, a labels column Unsloth then copies from), or text rows tokenized with
// truncation to max_length, adding special tokens unless the first row's text already starts with
// the BOS token or the chat template writes it ("Unsloth: We found double BOS tokens"). A messages
// row becomes its text through the chat template (tokenize=False), as Unsloth's notebooks format it.
#pragma once
#include "core/frameworks/Framework.h"

#include <optional>
#include <vector>

namespace maskscope::unsloth {

struct UnslothRow {
  PreparedRow row;                               // input_ids[, attention_mask][, labels] in column order
  std::optional<std::vector<int64_t>> oldLabels; // the row's own labels column
};

// maxLength: SFTConfig's (truncation of text rows). Error naming the row and key on bad input.
std::vector<UnslothRow> unslothInputRows(const std::vector<InputRow>& rows, FrameworkContext& ctx, int64_t maxLength);

} // namespace maskscope::unsloth
