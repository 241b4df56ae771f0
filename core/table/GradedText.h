// "Verify one batch": what the loss grades in a row, as text a person reads. core/mask's gradedText
// finds the graded targets (labels[t] at every graded t, runs joined by "…"); this decodes them with
// the tokenizer, for collate, the position table, lint's flagged rows and the app.
#pragma once
#include "core/data/Batch.h"

#include <cstdint>
#include <string>

namespace maskscope {

class Tokenizer;

// Row r's graded targets, each run decoded with the tokenizer (special tokens kept: "Blue.<|im_end|>");
// without a tokenizer, or for a run holding a label that is no token id, that run's ids ("#13 #151645").
// Empty when nothing is graded.
std::string gradedTextOfRow(const Batch& batch, int64_t row, const Tokenizer* tokenizer);

} // namespace maskscope
