// The measured lessons as the teaching step states them (LessonTexts.h).
#include "ui/teaching/LessonTexts.h"
#include "core/forward/MaskLessons.h"
#include "core/util/Utf8.h"
#include "ui/shell/Session.h"

#include <QLocale>
#include <QObject>

namespace maskscope {
namespace {

QString tr(const char* s) { return QObject::tr(s); }
QString count(int64_t n) { return QLocale(QLocale::English).toString(qlonglong(n)); }
QString token(const Session& s, int64_t id) {
  return QString::fromStdString(utf8::visibleWhitespace(s.tokenText(id).toStdString())).toHtmlEscaped();
}

QString chainText(const MaskLessons& l, const QString& model) {
  const GradientTally t = tallyGradients(l);
  return tr("<p><b>Ignored &#8594; no loss &#8594; no gradient &#8594; no update</b>, measured with %1 on this "
            "row: each of its %2 ignored positions (%3 prompt, %4 pad) sends a gradient of exactly %5 into the "
            "model's %6 weights; each of its %7 graded positions sends one of norm %8 to %9. One AdamW step with "
            "every label -100 moves <b>%10</b> of the %6 weights; with the labels as given it moves %11.</p>")
      .arg(model.toHtmlEscaped())
      .arg(t.ignored)
      .arg(t.ignoredByRole[RolePrompt] + t.ignoredByRole[RoleUnknown])
      .arg(t.ignoredByRole[RolePad])
      .arg(t.maxIgnoredNorm, 0, 'g', 3)
      .arg(count(l.weights))
      .arg(t.graded)
      .arg(t.minGradedNorm, 0, 'g', 3)
      .arg(t.maxGradedNorm, 0, 'g', 3)
      .arg(count(l.allIgnored.weightsMoved))
      .arg(count(l.asGiven.weightsMoved));
}

QString readAndFreeText(const Session& s, const MaskLessons& l) {
  QString out;
  if (l.probed)
    out += tr("<p><b>Masked tokens are still read:</b> the prompt token <code>%2</code> (index %1, label -100) "
              "changed to <code>%3</code> moves the loss of this row's graded tokens from %4 to %5: the prompt is "
              "the context the reply is predicted from.</p>")
               .arg(l.probe.position)
               .arg(token(s, l.probeTokenBefore), token(s, l.probe.token))
               .arg(l.rowLossBefore, 0, 'f', 6)
               .arg(l.rowLossAfter, 0, 'f', 6);
  if (l.flipCompared)
    out += tr("<p><b>Masking is free:</b> flipping every label between graded and -100 (%1 graded &#8594; %2) "
              "changes the loss from %3 to %4 but no logit (largest change %5): the forward pass is the same "
              "work, only the loss sum differs.</p>")
               .arg(l.asGiven.graded)
               .arg(l.gradedFlipped)
               .arg(l.lossBefore, 0, 'f', 4)
               .arg(l.lossFlipped, 0, 'f', 4)
               .arg(l.maxLogitChangeFlip, 0, 'g', 3);
  return out;
}

} // namespace

QString measuredLessonsText(const Session& s) {
  if (const MaskLessons* l = s.rowLessons()) return chainText(*l, s.modelSpec()) + readAndFreeText(s, *l);
  if (const QString error = s.rowLessonsError(); !error.isEmpty())
    return tr("<p>The lessons could not be measured on this row: %1</p>").arg(error.toHtmlEscaped());
  if (s.modelSpec().isEmpty())
    return tr("<p><i>Load a model (Model menu; builtin:tiny for the demo) and this step measures on this row the "
              "gradient each -100 position sends into the weights and one AdamW step with every label -100.</i></p>");
  return tr("<p><i>Measuring the lessons on this row with %1&#8230;</i></p>").arg(s.modelSpec().toHtmlEscaped());
}

} // namespace maskscope
