// `maskscope loss --lessons`: the masking article's lessons measured by the engine on the batch
// (core/forward/MaskLessons.h): ignored -> no loss -> no gradient -> no update, masked tokens are still
// read, and masking is free. JSON (docs/cli.md) and a short text report.
#pragma once
#include "core/commands/CommandIO.h"
#include "core/commands/LossCommand.h"
#include "core/forward/MaskLessons.h"

#include <nlohmann/json.hpp>

#include <string>

namespace maskscope {

class Tokenizer;

// Exit 0 when every lesson holds (lessonsHold), 1 when one does not, 2 unusable input.
int runLossLessons(const LossArgs& args, CommandIO& io);

// The JSON of the lessons (docs/cli.md, `loss --lessons`); tokens decoded with tokenizer when given.
nlohmann::json lessonsJson(const MaskLessons& lessons, const Tokenizer* tokenizer);

// A token as a person reads it: the tokenizer's display text, else "#id".
std::string lessonTokenText(int64_t id, const Tokenizer* tokenizer);

} // namespace maskscope
