// `maskscope patch-template` (the training template, core/template/TrainingTemplate.h): writes the
// chat template with {% generation %} blocks around each assistant reply and its closing token,
// verified by rendering probes first.
#pragma once
#include "core/commands/CommandIO.h"

#include <string>

namespace maskscope {

struct TrainingTemplateArgs {
  std::string templateSpec;  // built-in name, .jinja, tokenizer_config.json or model folder
  std::string tokenizerSpec; // optional: its special tokens and folder
  std::string out;           // the .jinja to write
};

// 0: verified and written; 2: not patchable or not verified (nothing written), with the reason.
// --json prints {"out", "closing_token", "wrapped": [str], "probes_checked"} or {"error"}.
int runTrainingTemplate(const TrainingTemplateArgs& args, CommandIO& io);

} // namespace maskscope
