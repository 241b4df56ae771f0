// The steps of teaching mode. Each step names the collator it applies, the view it brings to the
// front and the position it selects; its text is computed from the batch on screen after that, so
// every number a teacher reads out is the one the views show.
#pragma once
#include <QString>
#include <functional>
#include <vector>

namespace maskscope {

class Session;

struct TeachingStep {
  QString title;
  std::function<QString(const Session&)> text; // HTML, from the session after collator and position are applied
  QString collator;                            // applied on entry
  QString view;                                // "tokens", "attention", "softmax", "loss", "table", ...
  std::function<int(const Session&)> position; // position to select, -1 = none
  bool softmaxExample = false;
  // The text quotes the engine's measured lessons on the selected row (Session::rowLessons): the view
  // asks for them on entry and when the row changes, and redraws the text when they arrive.
  bool measuresLessons = false;
  // The step shows the BERT aside (Session::setMaskedLmAside): the strip's [MASK] chips and BERT's labels,
  // the grid's bidirectional mask. Every other step turns it off.
  bool maskedLmAside = false;
};

std::vector<TeachingStep> teachingSteps();
// The step applies a collator preset that reproduces a bug (the registry's `buggy`): its snapshot must
// show the lint findings of that bug, so the step runs lint (TeachingView::setLintNow).
bool stepShowsBug(const TeachingStep& step);

} // namespace maskscope
