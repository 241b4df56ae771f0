// The masking lessons of the selected row (Session.h: rowLessons): kept with the row they were measured
// on, so a lesson's figures never outlive the row they describe.
#include "ui/shell/Session.h"

namespace maskscope {
namespace {

// The grids a lesson depends on, of the selected row as a model run sees it.
bool sameRow(const Batch& a, const Batch& b) {
  return a.inputIds == b.inputIds && a.labels == b.labels && a.attentionMask == b.attentionMask &&
         a.positionIds == b.positionIds;
}

} // namespace

const MaskLessons* Session::rowLessons() const {
  if (!rowLessons_ || !hasBatch()) return nullptr;
  try {
    return sameRow(lessonsRow_, maskscope::batchRow(modelBatch(), batchRow_)) ? &*rowLessons_ : nullptr;
  } catch (const std::exception&) {
    return nullptr; // a 4-D mask the model cannot run: nothing was measured on it
  }
}

QString Session::rowLessonsError() const {
  if (rowLessonsError_.isEmpty() || !hasBatch()) return {};
  try {
    return sameRow(lessonsRow_, maskscope::batchRow(modelBatch(), batchRow_)) ? rowLessonsError_ : QString();
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
}

void Session::setRowLessons(const Batch& rowBatch, std::optional<MaskLessons> lessons, const QString& error) {
  lessonsRow_ = rowBatch;
  rowLessons_ = std::move(lessons);
  rowLessonsError_ = error;
  Q_EMIT rowLessonsChanged();
}

void Session::requestRowLessons() { Q_EMIT rowLessonsRequested(); }

} // namespace maskscope
