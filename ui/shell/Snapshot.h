// `maskscope snapshot`: renders one view of the app off screen into a PNG (or SVG by extension).
#pragma once
#include "core/commands/BatchInputs.h"
#include "core/commands/CommandIO.h"

#include <string>

namespace maskscope {

struct SnapshotArgs {
  std::string view = "window"; // a view of the registry (ui/shell/ViewRegistry.h) or "window"
  std::string out;             // .png (default) or .svg
  BatchInputs inputs;          // dataSpec empty: builtin:demo; batchFile: a batch dump instead
  std::string modelSpec;       // --model: real losses / attention (needs the LibTorch module)
  long row = 0;
  long position = -1; // --position: the selected query (softmax, strip, grid highlight)
  int width = 1280;
  int height = 820;
  std::string theme = "light";    // --theme light|dark
  std::string compare;            // --compare A,B: the two collators of the compare view
  int teachingStep = 0;           // --step N (1-based) for the teaching view; 0 = the intro
  double zoom = 1.0;              // --zoom Z: attention grid zoom around the selected position
  bool softmaxExample = false;    // --example: the softmax view's 2.0/1.0/0.1 teaching row
  std::string hide;               // --hide system,whitespace,padding: the table view's filters
  bool presenter = false;         // --presenter: the window in presenter mode (large type)
  std::string modelConfig;        // --model-config FILE: a config.json's layer layout, no weights (not with --model)
  int layer = -1;                 // --layer N (needs --model or --model-config): the layer shown; -1 = not given (0)
  long window = 0;                // --window N (without --model): draw a sliding window of N keys; 0 = none
  std::string stage;              // --stage batch|prepared (framework specs): what the row list shows and --row counts
  std::string attnImplementation; // --attn-implementation: the mask the grid and a model run follow ("" = implied)
};

// The views snapshot knows (the view registry's names, then "window"), for --help and errors.
std::string snapshotViewNames();

// Creates its own QApplication (offscreen platform unless one is set) when none exists.
int runSnapshot(const SnapshotArgs& args, CommandIO& io);

} // namespace maskscope
