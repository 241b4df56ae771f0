// "Verify one batch": what the loss grades in a row, as text a person reads. core/mask's gradedText
// finds the graded targets (labels[t] at every graded t, runs joined by "…"); this decodes them with
// the tokenizer, for collate, the position table, lint's flagged rows and the app.
#pragma once
#include "core/data/Batch.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace maskscope {

class Tokenizer;

// Row r's graded targets, each run decoded with the tokenizer (special tokens kept: "Blue.<|im_end|>");
// without a tokenizer, or for a run holding a label that is no token id, that run's ids ("#13 #151645").
// Empty when nothing is graded.
std::string gradedTextOfRow(const Batch& batch, int64_t row, const Tokenizer* tokenizer);

// The graded text as the text forms print it: JSON-quoted, except that every run of 4 or more copies
// of one special-looking token ("<|image_pad|>" x 256, at most 64 bytes, no spaces) stands outside the
// quotes as <|image_pad|>×256, so that an image block graded by mistake does not bury the rest of the
// line. --json keeps the exact text.
std::string quotedGradedText(std::string_view text);

} // namespace maskscope
