// The first steps of issue 34 that the views get wrong with a framework or at 1024 x 768, through the
// real widgets off screen: Train vs serve and Compare with a framework spec, the attention line, the
// chips' key without F1, the stop-token verdict; ctest runs it on a 1024 x 768 screen.
#include "../TokenizerCacheRequired.h"
#include "core/mask/RowFacts.h"
#include "core/train/TrainReport.h"
#include "core/train/TrainVerdict.h"
#include "ui/shell/HelpDialog.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/AttentionView.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/renderdiff/RenderDiffCanvas.h"
#include "ui/views/renderdiff/RenderDiffView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/Palette.h"

#include <QAbstractScrollArea>
#include <QComboBox>
#include <QFileInfo>
#include <QHelpEvent>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QTest>
#include <QTextDocument>
#include <QToolTip>

using namespace maskscope;

namespace {

QString fixture(const QString& name) { return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/ui/frameworks/") + name; }
QString qwen3() { return QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/qwen3"); }

// MASKSCOPE_SCREENSHOT_DIR=DIR: the window as the test sees it, to look at.
void saveScreenshot(QWidget& w, const QString& name) {
  const QString dir = qEnvironmentVariable("MASKSCOPE_SCREENSHOT_DIR");
  if (!dir.isEmpty()) w.grab().save(QStringLiteral("%1/first-steps-views-%2.png").arg(dir, name));
}

// A window on the chat rows with the Axolotl config (chatml, Qwen3's tokenizer) as the collator.
struct AxolotlWindow {
  AxolotlWindow() : window(&session) {}
  bool open() {
    QString error;
    return session.setTokenizer(qwen3()) && session.openDataset(fixture(QStringLiteral("chat-rows.jsonl"))) &&
           window.openFrameworkConfig(fixture(QStringLiteral("axolotl-chatml.yml")), &error);
  }
  Session session;
  MainWindow window;
};

// A run's held-out curve at steps 0, 5, 10, ... and its generations (stopped or not).
TrainRunResult run(const std::vector<double>& heldOut, const std::vector<bool>& stops) {
  TrainRunResult r;
  for (size_t i = 0; i < heldOut.size(); ++i) r.heldOut.push_back({int64_t(5 * i), heldOut[i]});
  for (bool s : stops) r.generations.push_back({{1, 2, 3}, s});
  return r;
}

// w's rectangle in global coordinates.
QRect globalRect(const QWidget* w) { return QRect(w->mapToGlobal(QPoint(0, 0)), w->size()); }

// The part of w a person sees without scrolling: its rectangle clipped by every ancestor.
QRect visibleRect(const QWidget* w) {
  QRect r = globalRect(w);
  for (const QWidget* p = w->parentWidget(); p; p = p->parentWidget()) r &= globalRect(p);
  return r;
}

// Whole lines of its own type a text or list view shows where it stands (its viewport, clipped).
int wholeLines(const QAbstractScrollArea* view) {
  return visibleRect(view->viewport()).height() / view->fontMetrics().lineSpacing();
}

// Every view docked at the bottom but the teaching panel (which presenter mode puts beside them).
QStringList bottomViews() {
  QStringList out;
  for (const ViewSpec& v : viewRegistry())
    if (v.area == Qt::BottomDockWidgetArea && v.name != QStringLiteral("teaching")) out << v.name;
  return out;
}

// The lint list shows errors first, then warnings, then infos, each severity in report order (the
// audit page's order); each row says its finding. The report must hold a lesser finding before an
// error, or the check could not fail on a list in report order.
void checkErrorsFirst(const LintView& lint) {
  const auto& findings = lint.report().findings;
  bool lesserBeforeError = false;
  for (size_t i = 1; i < findings.size(); ++i)
    lesserBeforeError =
        lesserBeforeError || (findings[i].severity == Severity::Error && findings[i - 1].severity != Severity::Error);
  QVERIFY2(lesserBeforeError, "the fixture's report lists no warning before an error");
  QListWidget* list = lint.list();
  QCOMPARE(size_t(list->count()), findings.size());
  std::vector<int> seen;
  for (int row = 0; row < list->count(); ++row) {
    const int index = lint.findingAtRow(row);
    QVERIFY(index >= 0 && size_t(index) < findings.size());
    QCOMPARE(lint.listRowOf(index), row);
    const Finding& f = findings[size_t(index)];
    const QString text = list->item(row)->text();
    QVERIFY2(text.contains(QString::fromLatin1(severityName(f.severity)).toUpper()) &&
                 text.contains(QString::fromStdString(f.rule)),
             qPrintable(text));
    if (row > 0) {
      const Finding& before = findings[size_t(seen.back())];
      QVERIFY2(int(before.severity) > int(f.severity) || (before.severity == f.severity && seen.back() < index),
               qPrintable(QStringLiteral("row %1: %2 after %3").arg(row).arg(text, list->item(row - 1)->text())));
    }
    seen.push_back(index);
  }
}

} // namespace

class TestFirstStepsViews : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    palette::setTheme(palette::Theme::Light);
    REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(qwen3() + QStringLiteral("/tokenizer.json")));
  }

  // Train vs serve with a framework spec over a dataset of conversations: the row's turns, compared as
  // the framework's chat template renders them (and said so), not "open a dataset of conversations".
  void trainServeWithAFramework() {
    AxolotlWindow a;
    QVERIFY(a.open());
    QTRY_VERIFY(a.session.isFramework());
    a.session.selectRow(1); // two assistant turns
    a.window.showView(QStringLiteral("renderdiff"));
    auto* view = qobject_cast<RenderDiffView*>(a.window.view(QStringLiteral("renderdiff")));
    QVERIFY(view);
    QTRY_VERIFY2(view->canvas()->message().isEmpty(), qPrintable(view->canvas()->message()));
    QCOMPARE(int(view->canvas()->turns().size()), 2);
    QVERIFY2(view->canvas()->title().contains(QStringLiteral("chat template axolotl uses, ")) &&
                 view->canvas()->title().contains(QStringLiteral("chatml")),
             qPrintable(view->canvas()->title()));
    QVERIFY2(view->canvas()->title().startsWith(QStringLiteral("Row 1 (line 2)")), qPrintable(view->canvas()->title()));
    // Without the framework the same row gives the same turns under the same template.
    const std::vector<TurnDiff> framework = view->canvas()->turns();
    QVERIFY(a.session.setTemplate(QStringLiteral("chatml")));
    QVERIFY(a.session.setCollator(QStringLiteral("default")));
    a.session.selectRow(1);
    QTRY_VERIFY(!a.session.isFramework() && view->canvas()->message().isEmpty());
    QCOMPARE(view->canvas()->turns().size(), framework.size());
    for (size_t k = 0; k < framework.size(); ++k) QCOMPARE(view->canvas()->turns()[k].serve, framework[k].serve);
  }

  // "As the batch implies" on a dataset's batch: the attention line names the implementation the grid
  // follows, wrapped inside the view at 1024 px (never cut at the window's edge).
  void attentionLineForADatasetBatch() {
    Session s;
    MainWindow w(&s);
    w.setFitsScreen(false);
    w.resize(1024, 768);
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QVERIFY(s.setAttnImplementation(QString()));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QLabel* line = w.attentionView()->attentionRuleLabel();
    QTRY_VERIFY(line->isVisible());
    QVERIFY2(line->text().startsWith(QStringLiteral("attention: sdpa")), qPrintable(line->text()));
    QVERIFY(line->wordWrap());
    // The text fits the label's rectangle: each wrapped line within its width, every line in its height.
    QTextDocument doc;
    doc.setDocumentMargin(0);
    doc.setDefaultFont(line->font());
    doc.setPlainText(line->text());
    doc.setTextWidth(line->contentsRect().width());
    QTRY_VERIFY2(doc.size().height() <= line->contentsRect().height() + 1,
                 qPrintable(QStringLiteral("%1 px of text in a %2 px label")
                                .arg(doc.size().height())
                                .arg(line->contentsRect().height())));
    const QPoint right = line->mapTo(&w, QPoint(line->width(), 0));
    QVERIFY2(right.x() <= w.width(), qPrintable(QString::number(right.x())));
    // A chosen implementation: its whole rule, wrapped too.
    QVERIFY(s.setAttnImplementation(QStringLiteral("eager")));
    QTRY_COMPARE(line->text(), s.attentionRule());
    doc.setPlainText(line->text());
    doc.setTextWidth(line->contentsRect().width());
    QTRY_VERIFY(doc.size().height() <= line->contentsRect().height() + 1);
    saveScreenshot(w, QStringLiteral("attention-line"));
  }

  // Compare's lists offer every framework and any spec or config file; a framework config against a
  // preset compares the framework's batch, and the toolbar's framework is never replaced by a preset.
  void compareAnyTwoSpecs() {
    AxolotlWindow a;
    QVERIFY(a.open());
    QTRY_VERIFY(a.session.frameworkRun() != nullptr);
    CompareView* c = a.window.compareView();
    QComboBox* box = c->sideBox(1);
    QStringList frameworks;
    for (int i = 0; i < box->count(); ++i)
      if (box->itemText(i).startsWith(QStringLiteral("framework: "))) frameworks << box->itemText(i);
    QVERIFY2(frameworks.size() >= 4, qPrintable(frameworks.join(QStringLiteral(", "))));
    a.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&a.window));
    a.window.showView(QStringLiteral("compare"));
    QTRY_VERIFY(c->isVisible());
    // The config file on side B, a preset on side A.
    c->setCollators(QStringLiteral("default"), fixture(QStringLiteral("axolotl-chatml.yml")));
    QCOMPARE(c->sideSpec(1), fixture(QStringLiteral("axolotl-chatml.yml")));
    QCOMPARE(box->currentText(), QStringLiteral("axolotl-chatml.yml"));
    QTRY_COMPARE(c->stripB()->positionCount(), int(a.session.batch().length()));
    QVERIFY2(!c->summaryText().startsWith(QStringLiteral("Cannot")), qPrintable(c->summaryText()));
    // A framework at its defaults from the list.
    const int trl = box->findText(QStringLiteral("framework: "), Qt::MatchStartsWith);
    QVERIFY(trl >= 0);
    const int before = c->stripB()->positionCount();
    box->setCurrentIndex(trl);
    QTRY_VERIFY2(c->stripB()->positionCount() > 0 && c->stripB()->positionCount() != before,
                 qPrintable(c->summaryText()));
    QVERIFY(c->sideSpec(1).contains(QStringLiteral("\"framework\"")));
    // The toolbar entry stays the framework in use.
    c->sideBox(0)->setCurrentIndex(0);
    QCOMPARE(c->sideSpec(0), a.session.collatorSpec());
    QTRY_COMPARE(c->stripA()->positionCount(), int(a.session.batch().length()));
    QVERIFY2(c->sideSummaryText(0).startsWith(QStringLiteral("%1 positions").arg(a.session.batch().length())),
             qPrintable(c->sideSummaryText(0)));
    QVERIFY(a.session.isFramework());
    saveScreenshot(a.window, QStringLiteral("compare-framework"));
  }

  // The chips' glyphs (✓ L, A1, p14) explained without F1: each chip's tooltip reads its own glyphs, the
  // strip between chips says how to read one; F1's legend says it too and names no hex colour code.
  void chipGlyphsExplained() {
    Session s;
    MainWindow w(&s);
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("default,position_ids=arange")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    TokenStripView* strip = w.tokenStrip();
    QTRY_VERIFY(strip->positionCount() > 0);
    const Batch& b = s.batch();
    int graded = -1;
    for (int t = 0; t < strip->positionCount() && graded < 0; ++t)
      if (gradedAt(b, s.batchRow(), t)) graded = t;
    QVERIFY(graded > 0);
    const QString tip = strip->describePosition(graded);
    QVERIFY2(tip.contains(QStringLiteral("\u2713 L = its label is graded")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("A1 = attention_mask 1")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("p%1 = its position id").arg(b.positionIds.at(s.batchRow(), graded))),
             qPrintable(tip));
    QVERIFY2(strip->describePosition(0).contains(QStringLiteral("-100 = its label is not graded")),
             qPrintable(strip->describePosition(0)));
    for (const QString& glyph : {QStringLiteral("\u2713 L"), QStringLiteral("A1"), QStringLiteral("p14")})
      QVERIFY2(TokenStripView::chipKey().contains(glyph), qPrintable(glyph));
    QTextDocument help;
    help.setHtml(HelpDialog::legendHtml());
    const QString text = help.toPlainText();
    QVERIFY(text.contains(TokenStripView::chipKey()));
    const QRegularExpression hex(QStringLiteral("#[0-9a-fA-F]{6}"));
    QVERIFY2(!hex.match(text).hasMatch(), qPrintable(hex.match(text).captured()));
  }

  // Presenter mode on a 1024 x 768 projector, the teaching steps beside each bottom panel in turn: the
  // step text shows three whole lines at least and the grid keeps room for its cells (never squeezed
  // to a strip with the Training lab docked).
  void presenterTeachingBesideEachBottomDock_data() {
    QTest::addColumn<QString>("view");
    for (const QString& v : bottomViews()) QTest::newRow(qPrintable(v)) << v;
  }
  void presenterTeachingBesideEachBottomDock() {
    QFETCH(QString, view);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(w.dockSizesApplied());
    w.setPresenterMode(true);
    QTRY_VERIFY(w.dockSizesApplied());
    TeachingView* teaching = w.teachingView();
    w.showView(QStringLiteral("teaching"));
    teaching->goToStep(1);
    QTRY_VERIFY(teaching->isVisible());
    w.showView(view);
    QTRY_VERIFY(w.view(view)->isVisible());
    for (int k = 0; k < 3; ++k) QCoreApplication::processEvents();
    auto* text = qobject_cast<QAbstractScrollArea*>(teaching->textView());
    QVERIFY(text);
    AttentionGridCanvas* grid = w.attentionGrid();
    auto report = [&] {
      return QStringLiteral("%1: text %2 whole lines (%3 px), grid %4 px (least %5), window %6x%7")
          .arg(view)
          .arg(wholeLines(text))
          .arg(visibleRect(text->viewport()).height())
          .arg(grid->height())
          .arg(grid->minimumSizeHint().height())
          .arg(w.width())
          .arg(w.height());
    };
    QTRY_VERIFY2(teaching->isVisible() && wholeLines(text) >= 3, qPrintable(report()));
    QTRY_VERIFY2(grid->height() >= 150, qPrintable(report()));
    saveScreenshot(w, QStringLiteral("presenter-teaching-") + view);
    qInfo().noquote() << report();
  }

  // The lint list at 1024 x 768: errors first, more than 8 findings show, each message whole (in its row or tooltip),
  // and clicking a finding keeps the list's selection on it while the views jump to its row.
  void lintListAt1024() {
    Session s;
    // 25 duplicate-row warnings (lint/audit/duplicates.jsonl), then two empty replies (errors).
    QVERIFY(s.openDataset(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/ui/lint-errors-last.jsonl")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(w.dockSizesApplied());
    w.showView(QStringLiteral("lint"));
    LintView* lint = w.lintView();
    lint->lintDataset();
    QTRY_VERIFY_WITH_TIMEOUT(lint->showsDatasetFindings() && !lint->lintPending(), 60000);
    QListWidget* list = lint->list();
    QTRY_VERIFY(list->count() > 8);
    for (int k = 0; k < 3; ++k) QCoreApplication::processEvents();
    checkErrorsFirst(*lint);
    const QRect view = list->viewport()->rect();
    int whole = 0;
    for (int i = 0; i < list->count(); ++i) {
      const QRect r = list->visualItemRect(list->item(i));
      if (r.top() < 0 || r.bottom() > view.bottom()) continue;
      ++whole;
      // The message whole: in the row, or in its tooltip where the row is cut at the list's edge.
      const Finding& f = lint->report().findings[size_t(lint->findingAtRow(i))];
      QVERIFY2(list->item(i)->toolTip().endsWith(QString::fromStdString(f.message)),
               qPrintable(list->item(i)->toolTip()));
    }
    // The list takes most of the panel's width: most messages show whole.
    QVERIFY2(list->width() >= lint->width() * 2 / 3,
             qPrintable(QStringLiteral("list %1 of %2 px").arg(list->width()).arg(lint->width())));
    saveScreenshot(w, QStringLiteral("lint-list"));
    QVERIFY2(
        whole > 8,
        qPrintable(
            QStringLiteral("%1 whole findings in a %2 x %3 px list").arg(whole).arg(view.width()).arg(view.height())));
    // A click on a finding of another row: the list keeps it selected after the jump.
    int target = -1;
    auto findingAt = [&](int row) { return lint->report().findings[size_t(lint->findingAtRow(row))]; };
    for (int i = 1; i < list->count() && target < 0; ++i)
      if (list->visualItemRect(list->item(i)).bottom() <= view.bottom() && findingAt(i).row &&
          *findingAt(i).row != s.selectedRow())
        target = i;
    QVERIFY(target > 0);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(target)).center());
    QTRY_COMPARE(long(s.selectedRow()), *findingAt(target).row);
    QTRY_VERIFY(!lint->lintPending());
    QCOMPARE(list->currentRow(), target);
    QVERIFY(list->item(target)->isSelected());
    QCOMPARE(list->selectedItems().size(), 1);
  }

  // The stop-token verdict: the held-out dip and rise its chart shows, computed from the curve, and what
  // "ended" counts.
  void stopVerdictSaysTheCurve_data() {
    QTest::addColumn<std::vector<double>>("heldOutB");
    QTest::addColumn<QString>("says");
    QTest::newRow("dip and rise") << std::vector<double>{7.949, 7.512, 7.530, 7.572}
                                  << QStringLiteral(
                                         "run B's held-out loss fell from 7.949 to its lowest, 7.512 at step "
                                         "5, then rose to 7.572 at step 15");
    QTest::newRow("falls throughout") << std::vector<double>{7.949, 7.700, 7.572}
                                      << QStringLiteral("run B's held-out loss went from 7.949 to 7.572");
    QTest::newRow("rise below the printed digits") << std::vector<double>{7.949, 7.5720, 7.5722}
                                                   << QStringLiteral("run B's held-out loss went from 7.949 to 7.572");
  }
  void stopVerdictSaysTheCurve() {
    QFETCH(std::vector<double>, heldOutB);
    QFETCH(QString, says);
    TrainReport report;
    report.runs[0] = run({7.949, 7.80, 7.711}, {false, false, false});
    report.runs[1] = run(heldOutB, {true, true, true});
    const std::optional<TrainVerdict> v = trainVerdict(TrainOutcome::EndOfTurn, report);
    QVERIFY(v);
    const QString text = QString::fromStdString(v->text);
    QVERIFY2(text.contains(says), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("run A's held-out loss went from 7.949 to 7.711")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("A generation ended when the end-of-turn token came within its budget")),
             qPrintable(text));
  }
};

QTEST_MAIN(TestFirstStepsViews)
#include "tst_first_steps_views.moc"
