// Nothing untrue on screen (issue 33): the softmax view says when its scores are made up (on the view
// and in its snapshots), a teaching step that shows a bug shows lint's findings for it (never the
// empty list of a batch lint has not judged), the lint panel says when it has not linted, and the
// position table and the row summary's tooltip show what the loss reads ("Blue.<|im_end|>").
#include "core/mask/RowFacts.h"
#include "ui/shell/Export.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/teaching/TeachingSteps.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/views/table/PositionTableView.h"
#include "ui/widgets/Palette.h"

#include <QFile>
#include <QLabel>
#include <QPainter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace maskscope;

namespace {

const QString kNote = QStringLiteral("Illustrative scores, not a model's");

// The softmax view as `snapshot --out x.svg` writes it (vector text, so the words can be read back).
QByteArray svgOf(const SoftmaxView& v) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("softmax.svg"));
  if (!exportSvg([&](QPainter& p, QRect r) { v.render(p, r); }, QSize(900, 420), path, QStringLiteral("softmax")))
    return {};
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The chat row whose reply is "Blue." (tests/data/cli/graded-count/chat.jsonl, row 0), ChatML.
void openColourRow(Session& s) {
  QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QStringLiteral("chatml"), QStringLiteral("default")));
  QVERIFY(s.openDataset(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/cli/graded-count/chat.jsonl")));
  s.selectRow(0);
  QVERIFY(s.hasBatch());
}

} // namespace

class TestNothingUntrue : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    palette::setTheme(palette::Theme::Light);
  }

  // No model: the scores are made up from the token ids. The source line and the snapshot say so;
  // with a model's scores they do not (and editing a model's scores makes them illustrative again).
  void softmaxSaysWhenScoresAreIllustrative() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("default")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    SoftmaxView v(&s);
    v.showSelectedRow();
    QVERIFY(v.illustrativeScores());
    QVERIFY2(v.sourceText().startsWith(kNote), qPrintable(v.sourceText()));
    QVERIFY2(svgOf(v).contains(kNote.toUtf8()), "the snapshot does not say the scores are illustrative");

    const int64_t T = s.batch().length();
    std::vector<float> scores(size_t(T * T));
    for (size_t i = 0; i < scores.size(); ++i) scores[i] = float(i % 7) * 0.25f; // a model's, as far as the view knows
    v.setModelScores(scores, QStringLiteral("test model"));
    QVERIFY(!v.illustrativeScores());
    QVERIFY2(!v.sourceText().contains(kNote), qPrintable(v.sourceText()));
    QVERIFY(!svgOf(v).contains(kNote.toUtf8()));
    v.setShownScores({1.0, 2.0});
    QVERIFY(v.illustrativeScores());
    QVERIFY2(v.scoresNote().contains(QStringLiteral("edited")), qPrintable(v.scoresNote()));

    v.showTeachingExample();
    QVERIFY(v.illustrativeScores());
    QVERIFY(svgOf(v).contains(kNote.toUtf8()));
  }

  // Every step that applies a buggy preset lints at once: its window (and `snapshot --view teaching
  // --step N`, which grabs the window right after the step) shows that bug's findings.
  void buggyTeachingStepsShowTheirFindings() {
    Session s;
    MainWindow w(&s);
    w.show();
    TeachingView* t = w.teachingView();
    QVERIFY(t);
    const std::vector<TeachingStep> steps = TeachingView::steps();
    int buggy = 0;
    for (int i = 0; i < int(steps.size()); ++i) {
      if (!stepShowsBug(steps[size_t(i)])) continue;
      ++buggy;
      t->goToStep(i); // no event loop turn: what a snapshot grabs
      const LintView* lint = w.lintView();
      QCOMPARE(lint->reportedRow(), s.selectedRow()); // the findings are this batch's
      const LintSummary& sum = lint->report().summary;
      QVERIFY2(sum.errors + sum.warnings > 0,
               qPrintable(steps[size_t(i)].title + QStringLiteral(": ") + lint->summaryText()));
      QVERIFY2(!lint->summaryText().contains(QStringLiteral("0 errors, 0 warnings")), qPrintable(lint->summaryText()));
    }
    QVERIFY(buggy >= 2);
  }

  // Before lint has judged a batch the panel says so, never "No findings".
  void lintPanelSaysWhenItHasNotLinted() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("default")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    LintView panel(&s);
    panel.show();
    s.selectRow(1);
    QVERIFY(panel.isStale());
    QVERIFY2(panel.summaryText().contains(QStringLiteral("Not linted yet")), qPrintable(panel.summaryText()));
    QTRY_VERIFY(!panel.isStale());
    QVERIFY2(!panel.summaryText().contains(QStringLiteral("Not linted yet")), qPrintable(panel.summaryText()));
  }

  // "Verify one batch": the table and the row summary read exactly the reply and its closing token.
  void gradedTextReadsTheReply() {
    Session s;
    openColourRow(s);
    QVERIFY(gradedInRow(s.batch(), s.batchRow()) > 0);
    PositionTableView table(&s);
    QVERIFY2(table.gradedText().endsWith(QStringLiteral(": Blue.<|im_end|>")), qPrintable(table.gradedText()));
    MainWindow w(&s);
    QVERIFY2(w.summaryLabel()->toolTip().contains(QStringLiteral("<code>Blue.&lt;|im_end|&gt;</code>")),
             qPrintable(w.summaryLabel()->toolTip()));
  }
};

QTEST_MAIN(TestNothingUntrue)
#include "tst_nothing_untrue.moc"
