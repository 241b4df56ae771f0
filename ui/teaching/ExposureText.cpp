// The exposure-bias paragraph of the teacher-forcing step (see ExposureText.h).
#include "ui/teaching/ExposureText.h"
#include "core/train/ExposureBias.h"
#include "ui/shell/Session.h"

#include <QObject>
#include <cmath>

namespace maskscope {

QString exposurePercent(double share) {
  return std::isnan(share) ? QStringLiteral("-") : QString::number(100.0 * share, 'f', 0) + QStringLiteral(" %");
}

QString exposureTokens(double median) {
  if (std::isnan(median)) return QStringLiteral("-");
  return QString::number(median, 'f', median == std::floor(median) ? 0 : 1);
}

QString exposureBiasText(const Session& s) {
  const QString named = QObject::tr(
      "<p><b>Its cost, exposure bias:</b> trained this way the model never reads its own mistakes. Generating, it "
      "reads its own output instead, so one early wrong token puts it on a prefix it never saw in training and the "
      "error compounds. ");
  const ExposureReport* x = s.labExposure();
  if (!x || x->runs[1].replies.empty())
    return named + QObject::tr("The Training lab (step 11) measures it on the held-out replies: once it has "
                               "trained, this paragraph quotes how many of their tokens the model picks "
                               "teacher-forced and where its own greedy generation leaves them.</p>");
  const ExposureBias& e = x->runs[1]; // run B: the correct collator
  QString measured =
      QObject::tr("In the Training lab's last run (%1, run B with %2, %3 steps), teacher-forced the model picks "
                  "<b>%4</b> of the held-out replies' next tokens (%5 of %6); left to read its own output it "
                  "follows the reply for <b>%7</b> tokens (median over %8 replies), then leaves it")
          .arg(QString::fromStdString(x->experiment), QString::fromStdString(x->collator[1]))
          .arg(x->steps)
          .arg(exposurePercent(e.teacherForcedAccuracy()))
          .arg(e.teacherForcedCorrect)
          .arg(e.referenceTokens)
          .arg(exposureTokens(e.medianFirstDivergence))
          .arg(e.replies.size());
  if (e.afterPositions == 0)
    return named + measured +
           QObject::tr(" at its last token or not at all (it reproduces %1 of them exactly).</p>").arg(e.reproduced);
  return named + measured +
         QObject::tr(" and matches <b>%1</b> of the tokens after that, where teacher-forced it picks %2 of the "
                     "same tokens.</p>")
             .arg(exposurePercent(e.freeRunningAfterAccuracy()), exposurePercent(e.teacherForcedAfterAccuracy()));
}

} // namespace maskscope
