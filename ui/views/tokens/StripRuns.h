// Runs of a token strip row drawn as one unit: a tool call's span or a tool's output (a header chip
// naming the function before the run's first chip, so the name reads without hovering) and a run of
// one image placeholder token (folded into one wide chip "<|image_pad|> ×256" that unfolds on click).
#pragma once
#include "core/data/Batch.h"

#include <QRect>
#include <QString>
#include <vector>

namespace maskscope {

struct StripRun {
  enum class Kind { ToolCall, ToolOutput, Image };
  Kind kind = Kind::ToolCall;
  int begin = 0, end = 0; // positions [begin, end)
  QString name;           // tool runs: the function's name (empty: the row names none)
  int graded = 0;         // positions of the run whose label is graded (core/mask's gradedAt)
  bool folded = false;    // image runs: shown as one chip
  QRect header;           // content coordinates of the header chip (tool runs, unfolded image runs)
};

// Image placeholder runs shorter than this stay single chips (a marker pair is not worth a fold).
inline constexpr int kMinFoldedRun = 8;

// The runs of row r in position order, none overlapping: consecutive ToolCall (or named Tool)
// positions of one function, and runs of one token id of kind Image at least kMinFoldedRun long
// (folded). Empty when the batch has no conversation metadata (a dump).
std::vector<StripRun> stripRuns(const Batch& b, int r);

} // namespace maskscope
