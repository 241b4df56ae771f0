// The teaching step on -100 quotes the engine's measurements on the selected row (Session::rowLessons,
// core/forward/MaskLessons.h): ignored -> no loss -> no gradient -> no update, and "masked tokens are
// still read; masking is free". Every figure comes from the measurement; without one the text says
// how to get it and shows no number.
#pragma once
#include <QString>

namespace maskscope {

class Session;

// HTML paragraphs for the selected row: the measured chain, the prompt token changed and the label
// flip; or why there is no measurement yet (no model loaded, measuring, or the engine's error).
QString measuredLessonsText(const Session& session);

} // namespace maskscope
