// Teaching step 2 ("Labels and -100") quotes the engine's measured lessons on the selected row
// (Session::rowLessons): through the app's own path (builtin:tiny loaded by the model controller, the
// lessons run off the UI thread), the figures equal a direct measurement of the same row, no figure is
// shown before one is measured, and another row brings other figures.
#include "core/forward/MaskLessons.h"
#include "core/forward/ModelSpec.h"
#include "core/mask/RowFacts.h"
#include "ui/model/ModelRunner.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/teaching/TeachingView.h"

#include <QLocale>
#include <QtTest>

using namespace maskscope;

namespace {

QString grouped(int64_t n) { return QLocale(QLocale::English).toString(qlonglong(n)); }

// The figures of the chain sentence as the step prints them.
QStringList chainFigures(const MaskLessons& l) {
  const GradientTally t = tallyGradients(l);
  return {
      QStringLiteral("each of its %1 ignored positions").arg(t.ignored),
      QStringLiteral("each of its %1 graded positions").arg(t.graded),
      QStringLiteral("moves <b>%1</b> of the %2 weights").arg(grouped(l.allIgnored.weightsMoved), grouped(l.weights)),
      QStringLiteral("as given it moves %1").arg(grouped(l.asGiven.weightsMoved)),
      QString::number(l.rowLossBefore, 'f', 6),
      QString::number(l.rowLossAfter, 'f', 6)};
}

} // namespace

class TestTeachingLessons : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void stepTwoQuotesMeasuredLessons() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    TeachingView* t = w.teachingView();
    t->goToStep(1);
    QVERIFY(t->steps()[1].measuresLessons);
    QVERIFY(s.rowLessons() == nullptr);
    QVERIFY2(t->currentText().contains(QStringLiteral("Load a model")), qPrintable(t->currentText()));
    QVERIFY(!t->currentText().contains(QStringLiteral("AdamW step with every label -100 moves")));

    s.setModelSpec(QStringLiteral("builtin:tiny")); // the controller loads it, then measures the row
    QTRY_VERIFY_WITH_TIMEOUT(s.rowLessons() != nullptr, 120000);
    const MaskLessons shown = *s.rowLessons();
    QVERIFY(lessonsHold(shown));
    QCOMPARE(tallyGradients(shown).graded, gradedInRow(s.batch(), s.batchRow()));

    // The same row measured directly, on another copy of the model.
    auto model = loadForwardModel(kBuiltinTinyModel, "cpu");
    const LessonsRun direct = measureRowLessons(*model, s.modelBatch(), s.batchRow());
    QVERIFY2(direct.lessons, qPrintable(direct.error));
    QCOMPARE(direct.lessons->asGiven.weightsMoved, shown.asGiven.weightsMoved);
    QCOMPARE(direct.lessons->rowLossAfter, shown.rowLossAfter);
    for (const QString& f : chainFigures(shown))
      QTRY_VERIFY2(t->currentText().contains(f), qPrintable(f + QStringLiteral(" not in ") + t->currentText()));

    // Another row with another graded count: other figures, measured again.
    const int64_t graded = gradedInRow(s.batch(), s.batchRow());
    int other = -1;
    for (int r = 0; r < s.rowCount() && other < 0; ++r) {
      s.selectRow(r);
      if (gradedInRow(s.batch(), s.batchRow()) != graded) other = r;
    }
    QVERIFY(other >= 0);
    QTRY_VERIFY_WITH_TIMEOUT(s.rowLessons() != nullptr, 120000);
    const MaskLessons next = *s.rowLessons();
    QCOMPARE(tallyGradients(next).graded, gradedInRow(s.batch(), s.batchRow()));
    QVERIFY(tallyGradients(next).graded != tallyGradients(shown).graded);
    for (const QString& f : chainFigures(next))
      QTRY_VERIFY2(t->currentText().contains(f), qPrintable(f + QStringLiteral(" not in ") + t->currentText()));
  }
};

QTEST_MAIN(TestTeachingLessons)
#include "tst_teaching_lessons.moc"
