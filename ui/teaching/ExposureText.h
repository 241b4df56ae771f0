// The teaching step on teacher forcing names its cost, exposure bias, and quotes the Training lab's
// measurement of it (Session::labExposure, core/train/ExposureBias.h): every figure comes from the lab's
// last finished run; before one, the text says how to get it and shows no number.
#pragma once
#include <QString>

namespace maskscope {

class Session;
struct ExposureBias;

// "42 %", or "-" for NaN: the share as the step and the lab line print it.
QString exposurePercent(double share);
// "3", or "2.5" for a median between two replies.
QString exposureTokens(double median);

// One HTML paragraph: exposure bias named, with the lab's run B (the correct collator) measured.
QString exposureBiasText(const Session& session);

} // namespace maskscope
