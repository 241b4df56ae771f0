// `maskscope render-diff`: per assistant turn of each dataset row, the tokens the model is trained
// on against the tokens it sees at inference when it generates that turn (core/collate/TrainServeDiff.h).
#pragma once
#include "core/commands/CommandIO.h"

#include <string>
#include <utility>
#include <vector>

namespace maskscope {

struct RenderDiffArgs {
  std::string tokenizerSpec;
  std::string templateSpec;             // empty: the tokenizer's own
  std::string collatorSpec = "default"; // the training side is the collated row (its BOS, truncation)
  std::string dataSpec;
  long row = -1;                                         // --row N; -1: every row
  std::vector<std::pair<std::string, std::string>> vars; // --var k=v
  bool failOnDiff = false;
};

// Exit status: 2 when a row could not be read or rendered (after the other rows), else 1 with
// failOnDiff when a turn differs, else 0.
int runRenderDiff(const RenderDiffArgs& args, CommandIO& io);

} // namespace maskscope
