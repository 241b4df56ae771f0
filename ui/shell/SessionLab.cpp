// The session's copy of the Training lab's last finished run (its exposure bias on the held-out
// replies), kept here so the teaching steps quote the numbers the lab panel shows.
#include "ui/shell/Session.h"

namespace maskscope {

void Session::setLabExposure(const ExposureReport& report) {
  labExposure_ = report;
  Q_EMIT labExposureChanged();
}

} // namespace maskscope
