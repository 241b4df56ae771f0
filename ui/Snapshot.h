// `maskscope snapshot`: renders one view of the app off screen into a PNG.
#pragma once
#include "core/commands/BatchInputs.h"
#include "core/commands/CommandIO.h"

#include <string>

namespace maskscope {

struct SnapshotArgs {
  std::string view = "window"; // tokens, attention, softmax, loss, lint, window
  std::string out;
  BatchInputs inputs;          // dataSpec empty: builtin:demo
  long row = 0;
  int width = 1280;
  int height = 820;
};

// Creates its own QApplication (offscreen platform unless one is set) when none exists.
int runSnapshot(const SnapshotArgs& args, CommandIO& io);

} // namespace maskscope
