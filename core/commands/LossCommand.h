// `maskscope loss`: runs the model over the batch with the masks as given and fixed, and reports how
// much of the loss, the graded positions and the gradient come from padding (docs/cli.md: `loss`).
#pragma once
#include "core/commands/BatchInputs.h"
#include "core/commands/CommandIO.h"
#include "core/forward/ForwardEngine.h"

#include <nlohmann/json.hpp>

#include <string>

namespace maskscope {

struct LossArgs {
  BatchInputs inputs;
  std::string modelSpec;          // --model: a folder or builtin:tiny
  std::string device = "auto";    // --device auto|cpu|cuda
  bool gradients = true;          // gradient norms from pad vs real positions (two backward passes)
  std::string attnImplementation; // --attn-implementation (empty: what the batch implies): the as-given mask
  bool lessons = false;           // --lessons: the masking lessons instead (core/commands/LossLessons.h)
};

// Exit 0 when the masks are harmless (fixed == as given, real logits unchanged, no cross-example
// attention); 1 when fixing them changes the loss or the real tokens' logits; 2 unusable input.
// With args.lessons: runLossLessons (its own exit status).
int runLoss(const LossArgs& args, CommandIO& io);

// The JSON of a report (docs/cli.md) (also what the app shows).
nlohmann::json lossReportJson(const LossReport& report, const ModelInfo& info);
// True when the report shows the masks changing the result (exit status 1).
bool lossReportFindsProblems(const LossReport& report);
// The text output's closing line. "the masks do not change the result" only when nothing is wrong
// and no prompt position is graded; a graded prompt is named with its share of the loss.
std::string lossVerdict(const LossReport& report, bool problems);

} // namespace maskscope
