// The desktop app off screen: the window on the demo, row and position selection, tooltips,
// collator switching, the softmax and loss arithmetic, lint jumps, compare, teaching, batch dumps,
// exports and snapshots (checked for content and colours), every view of the registry, the
// reset of the dock layout, theme contrast.
#include "core/collate/CollatorSpec.h"
#include "core/forward/ForwardEngine.h"
#include "core/forward/LossPlan.h"
#include "core/mask/CellClass.h"
#include "core/template/ChatTemplate.h"
#include "ui/shell/Export.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/shell/Snapshot.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/loss/LossView.h"
#include "ui/views/preference/PreferenceView.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/Palette.h"
#include "ui/widgets/TokenizerPicker.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QTreeView>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <sstream>

using namespace maskscope;

namespace {

// Does row `row` of the session's batch have a padding key that some query may attend?
bool padAttended(const AttentionGridCanvas& grid, const Batch& b, int row) {
  const int n = int(grid.gridSize());
  for (int k = 0; k < n; ++k) {
    if (size_t(row) >= b.meta.size() || b.meta[size_t(row)][size_t(k)].kind != PositionKind::Padding) continue;
    if (grid.cellState(n - 1, k) == CellState::Allowed) return true;
  }
  return false;
}

int countColour(const QImage& img, QRgb colour, int tolerance = 6) {
  int n = 0;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) {
      QRgb c = img.pixel(x, y);
      if (std::abs(qRed(c) - qRed(colour)) <= tolerance && std::abs(qGreen(c) - qGreen(colour)) <= tolerance &&
          std::abs(qBlue(c) - qBlue(colour)) <= tolerance)
        ++n;
    }
  return n;
}

int distinctColours(const QImage& img) {
  QSet<QRgb> set;
  for (int y = 0; y < img.height(); y += 3)
    for (int x = 0; x < img.width(); x += 3) set.insert(img.pixel(x, y));
  return int(set.size());
}

QString writeDump(const QTemporaryDir& dir, int rows, int length, int realLength) {
  // Right-padded JSON dump: ids 10.., pad id 0, labels copied on real positions.
  QString ids, mask, labels;
  for (int r = 0; r < rows; ++r) {
    QStringList a, m, l;
    for (int t = 0; t < length; ++t) {
      const bool real = t < realLength - r;
      a << QString::number(real ? 10 + (t % 50) : 0);
      m << QString::number(real ? 1 : 0);
      l << QString::number(real ? 10 + (t % 50) : -100);
    }
    ids += (r ? QStringLiteral(",") : QString()) + QStringLiteral("[") + a.join(QLatin1Char(',')) + QStringLiteral("]");
    mask +=
        (r ? QStringLiteral(",") : QString()) + QStringLiteral("[") + m.join(QLatin1Char(',')) + QStringLiteral("]");
    labels +=
        (r ? QStringLiteral(",") : QString()) + QStringLiteral("[") + l.join(QLatin1Char(',')) + QStringLiteral("]");
  }
  const QString path = dir.filePath(QStringLiteral("dump.json"));
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(QStringLiteral("{\"input_ids\": [%1], \"attention_mask\": [%2], \"labels\": [%3], \"pad_token_id\": 0}")
              .arg(ids, mask, labels)
              .toUtf8());
  return path;
}

} // namespace

class TestUi : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void cleanup() { palette::setTheme(palette::Theme::Light); }

  void windowOpensOnTheDemo() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.conversationList()->model()->rowCount() > 10);
    QCOMPARE(w.conversationList()->model()->rowCount(), s.rowCount());
    QTRY_VERIFY(w.tokenStrip()->positionCount() > 0);
    QCOMPARE(w.tokenStrip()->positionCount(), int(s.batch().length()));
    QVERIFY(w.summaryLabel()->text().contains(QStringLiteral("graded")));
    QVERIFY(w.findChild<QLabel*>(QStringLiteral("readOnlyNotice"))->text().contains(QStringLiteral("never edits")));
  }

  void selectingARowUpdatesTheStrip_data() {
    QTest::addColumn<int>("row");
    QTest::newRow("row 1") << 1;
    QTest::newRow("row 5") << 5;
    QTest::newRow("row 9") << 9;
  }
  void selectingARowUpdatesTheStrip() {
    QFETCH(int, row);
    Session s;
    s.setBatchSize(1); // one row per batch: the strip holds exactly that row's tokens
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    const int before = w.tokenStrip()->positionCount();
    w.conversationList()->setCurrentIndex(w.conversationList()->model()->index(row, 0));
    QTRY_COMPARE(s.selectedRow(), row);
    QVERIFY(s.tokenized());
    QTRY_COMPARE(w.tokenStrip()->positionCount(), int(s.tokenized()->tokens.size()));
    QVERIFY(w.tokenStrip()->positionCount() != before || s.tokenized()->tokens.size() == size_t(before));
  }

  void positionsFollowTheKeyboard() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tokenStrip()->setFocus();
    w.tokenStrip()->setSelectedPosition(3);
    QTest::keyClick(w.tokenStrip(), Qt::Key_Right);
    QTRY_COMPARE(s.selectedPosition(), 4);
    QTRY_COMPARE(w.attentionGrid()->highlightedQuery(), 4);
    QTest::keyClick(w.tokenStrip(), Qt::Key_Home);
    QTRY_COMPARE(s.selectedPosition(), 0);
    QVERIFY(w.tokenStrip()->describePosition(0).contains(QStringLiteral("position 0")));
    QVERIFY(w.tokenStrip()->describePosition(0).contains(QStringLiteral("attention_mask")));
  }

  void hoveringACellNamesBothTokensAndTheReason_data() {
    QTest::addColumn<int>("query");
    QTest::addColumn<int>("key");
    QTest::addColumn<QString>("reason");
    QTest::newRow("future") << 2 << 5 << QStringLiteral("future");
    QTest::newRow("allowed") << 5 << 2 << QStringLiteral("allowed");
  }
  void hoveringACellNamesBothTokensAndTheReason() {
    QFETCH(int, query);
    QFETCH(int, key);
    QFETCH(QString, reason);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    AttentionGridCanvas* g = w.attentionGrid();
    g->setViewRect(QRectF(0, 0, 10, 10)); // zoomed in: cells are big enough to aim at
    const QString text = g->describeCell(query, key);
    QVERIFY2(text.contains(reason), qPrintable(text));
    const Batch& b = s.batch();
    QVERIFY(text.contains(QStringLiteral("query %1").arg(query)));
    QVERIFY(text.contains(QStringLiteral("key %1").arg(key)));
    Q_UNUSED(b);
    // A real tooltip event at the cell's centre shows the same text.
    const QRect plot = g->rect();
    QPoint target;
    for (int y = 0; y < plot.height() && target.isNull(); y += 2)
      for (int x = 0; x < plot.width(); x += 2)
        if (g->cellAt(QPoint(x, y)) == QPoint(key, query)) {
          target = QPoint(x + 3, y + 3);
          break;
        }
    QVERIFY(!target.isNull());
    QCOMPARE(g->cellAt(target), QPoint(key, query));
    QHelpEvent help(QEvent::ToolTip, target, g->mapToGlobal(target));
    QApplication::sendEvent(g, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), text);
    QToolTip::hideText();
  }

  void collatorSwitchChangesTheGrid() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    MainWindow w(&s);
    w.show();
    QVERIFY(!padAttended(*w.attentionGrid(), s.batch(), s.batchRow()));
    const int i = w.collatorBox()->findData(QStringLiteral("buggy-max-length-all-ones"));
    QVERIFY(i >= 0);
    w.collatorBox()->setCurrentIndex(i);
    QTRY_COMPARE(s.collatorSpec(), QStringLiteral("buggy-max-length-all-ones"));
    QTRY_VERIFY(padAttended(*w.attentionGrid(), s.batch(), s.batchRow()));
    QVERIFY(w.summaryLabel()->text().contains(QStringLiteral("pads attended")));
  }

  void collatorBoxFollowsTheSession_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("shown");
    QTest::newRow("preset") << QStringLiteral("buggy-pad-is-eos") << QStringLiteral("buggy-pad-is-eos");
    QTest::newRow("custom") << QStringLiteral("default,max_length=64,pad_to=max_length") << QStringLiteral("custom");
  }
  void collatorBoxFollowsTheSession() {
    QFETCH(QString, spec);
    QFETCH(QString, shown);
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), spec));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    QCOMPARE(w.collatorBox()->currentData().toString(), spec);
    QVERIFY(w.collatorBox()->currentText().contains(shown));
    s.setCollator(QStringLiteral("default"));
    QTRY_COMPARE(w.collatorBox()->currentData().toString(), QStringLiteral("default"));
  }

  void softmaxArithmetic() {
    const SoftmaxRow r =
        computeSoftmaxRow({2.0, 1.0, 0.1}, {CellState::Allowed, CellState::Allowed, CellState::Future});
    QCOMPARE(r.allowed, 2);
    QVERIFY(qAbs(r.weights[0] - 0.7311) < 1e-4);
    QVERIFY(qAbs(r.weights[1] - 0.2689) < 1e-4);
    QCOMPARE(r.weights[2], 0.0); // exactly zero, not tiny
    QVERIFY(qAbs(r.sum - (std::exp(2.0) + std::exp(1.0))) < 1e-9);
    QVERIFY(qAbs(r.unmasked[2] - 0.0986) < 1e-3);
    const SoftmaxRow all = computeSoftmaxRow({1.0, 3.0}, {CellState::Padding, CellState::Padding});
    QVERIFY(all.fullyMasked);
    QCOMPARE(all.weights[0], 0.5);
  }

  void softmaxViewFollowsTheSelection() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    SoftmaxView v(&s);
    v.showTeachingExample();
    QVERIFY(qAbs(v.current().weights[0] - 0.7311) < 1e-4);
    v.showSelectedRow();
    s.selectPosition(6);
    QTRY_COMPARE(v.query(), 6);
    double total = 0;
    for (double w : v.current().weights) total += w;
    QVERIFY(qAbs(total - 1.0) < 1e-9);
    for (size_t k = 7; k < v.current().weights.size(); ++k) QCOMPARE(v.current().weights[k], 0.0); // the future
    v.setShownScores({5.0});
    QCOMPARE(v.current().scores[size_t(v.firstShownKey())], 5.0);
  }

  void lossDilution() {
    // 1 row: 1 BOS + 200 prompt targets + 40 reply targets, labels copied everywhere (hf-lm style).
    Batch b;
    const int T = 241;
    b.inputIds = IntGrid(1, T, 5);
    b.attentionMask = IntGrid(1, T, 1);
    b.labels = IntGrid(1, T, 5);
    IntGrid roles(1, T, RolePrompt);
    for (int t = 201; t < T; ++t) roles.at(0, t) = RoleReply;
    std::vector<double> nll(T, 2.0);
    for (int t = 201; t < T; ++t) nll[size_t(t)] = 1.0;
    const LossBreakdown d = computeLossBreakdown(b, 0, nll, roles);
    QCOMPARE(d.graded[RolePrompt], int64_t(200));
    QCOMPARE(d.graded[RoleReply], int64_t(40));
    QVERIFY(qAbs(d.lossShare(RoleReply) - 40.0 / 440.0) < 1e-12);
    QVERIFY(qAbs(d.asGiven() - 440.0 / 240.0) < 1e-12);
    QCOMPARE(d.repliesOnly(), 1.0);
  }

  void lossViewCountsTheRow() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("hf-lm")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    LossView v(&s);
    QVERIFY(!v.fromModel());
    QVERIFY(v.breakdown().graded[RolePrompt] > 0); // labels = input_ids grade the prompt
    QVERIFY(v.dilutionText().contains(QStringLiteral("of the loss")));
    // Reply counts are the template's generation spans: the graded assistant header tokens
    // ("<|im_start|>assistant\n") count as prompt, as the view's legend says.
    const Batch& b = s.batch();
    const int r = s.batchRow();
    int64_t reply = 0, header = 0;
    for (int64_t t = 1; t < b.length(); ++t) {
      if (b.labels.at(r, t) == kIgnoreIndex) continue;
      const PositionMeta& m = b.meta[size_t(r)][size_t(t)];
      reply += m.reply;
      header += !m.reply && m.kind == PositionKind::Assistant;
    }
    QVERIFY(header > 0); // the case the count must not hide
    QCOMPARE(v.breakdown().graded[RoleReply], reply);
    const double share = v.breakdown().lossShare(RoleReply);
    v.setExampleLosses(2.0, 4.0, 0.05);
    QVERIFY(v.breakdown().lossShare(RoleReply) > share);
  }

  void batchDumpShowsBatchRows() {
    QTemporaryDir dir;
    const QString path = writeDump(dir, 3, 24, 20);
    Session s;
    QVERIFY2(s.openBatchDump(path), "dump did not load");
    QCOMPARE(s.rowCount(), 3);
    MainWindow w(&s);
    QCOMPARE(w.conversationList()->model()->rowCount(), 3);
    QVERIFY(w.conversationList()->model()->index(0, 0).data().toString().contains(QStringLiteral("batch row 0")));
    QCOMPARE(w.tokenStrip()->positionCount(), 24);
    w.conversationList()->setCurrentIndex(w.conversationList()->model()->index(2, 0));
    QTRY_COMPARE(s.batchRow(), 2);
    QCOMPARE(w.attentionGrid()->cellState(23, 20), CellState::Padding); // row 2 has 18 real tokens
    QVERIFY(!w.collatorBox()->isEnabled());
  }

  void lintFindingJumpsToRowAndPosition() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("buggy-max-length-all-ones")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    LintView panel(&s);
    QVERIFY(!panel.report().findings.empty());
    int index = -1;
    for (size_t i = 0; i < panel.report().findings.size(); ++i)
      if (panel.report().findings[i].rule == "pad-attended" && panel.report().findings[i].position) {
        index = int(i);
        break;
      }
    QVERIFY(index >= 0);
    const Finding f = panel.report().findings[size_t(index)];
    panel.selectFinding(index);
    QTRY_COMPARE(s.selectedPosition(), int(*f.position));
    QVERIFY(panel.explanationText().contains(QStringLiteral("pad-attended")));
  }

  void compareHighlightsDifferences() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    CompareView c(&s);
    c.setCollators(QStringLiteral("default"), QStringLiteral("default"));
    QCOMPARE(c.differingPositions(), 0);
    QCOMPARE(c.differingCells(), int64_t(0));
    c.setCollators(QStringLiteral("default"), QStringLiteral("buggy-max-length-all-ones"));
    QVERIFY(c.differingPositions() > 0);
    QVERIFY(c.differingCells() > 0);
    QVERIFY(c.summaryText().contains(QStringLiteral("differ")));
  }

  // A spec that is not a preset name is compared as given, not replaced by the first preset.
  void compareHonoursAnyCollatorSpec() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    CompareView c(&s);
    c.setCollators(QStringLiteral("default,max_length=8,truncation=keep_start"), QStringLiteral("default"));
    QCOMPARE(c.stripA()->positionCount(), 8);
    QVERIFY(c.stripB()->positionCount() > 8);
  }

  // The preference view: chosen and rejected of the selected pair, each with its prompt at -100 and
  // its completion graded; the same prompt ids in both; a hint on SFT data; the mismatch finding shown.
  void preferenceViewShowsBothSides() {
    Session s;
    const QString dir = QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/preference/");
    QVERIFY(s.openDataset(dir + QStringLiteral("conversational.jsonl")));
    QVERIFY(s.isPreference());
    QCOMPARE(s.rowCount(), 2);
    s.selectRow(1);
    PreferenceView v(&s);
    v.resize(900, 500);
    v.show();
    QTRY_VERIFY(v.chosen().batchSize() == 1 && v.rejected().batchSize() == 1);
    QCOMPARE(v.chosenStrip()->positionCount(), int(v.chosen().length()));
    QCOMPARE(v.rejectedStrip()->positionCount(), int(v.rejected().length()));
    int64_t promptC = 0, promptR = 0;
    while (v.chosen().labels.at(0, promptC) == kIgnoreIndex) ++promptC;
    while (v.rejected().labels.at(0, promptR) == kIgnoreIndex) ++promptR;
    QCOMPARE(promptC, promptR);
    QVERIFY(promptC > 0);
    for (int64_t t = 0; t < promptC; ++t) QCOMPARE(v.chosen().inputIds.at(0, t), v.rejected().inputIds.at(0, t));
    for (int64_t t = promptC; t < v.chosen().length(); ++t) QVERIFY(v.chosen().labels.at(0, t) != kIgnoreIndex);
    QVERIFY(v.chosenSummary().contains(QStringLiteral("prompt %1").arg(promptC)));
    QVERIFY(v.noticeText().isEmpty());
    // The template whose generation prompt opens <think>: the finding is shown in the view.
    QVERIFY(s.setTemplate(dir + QStringLiteral("think-generation-prompt.jinja")));
    QTRY_VERIFY(v.noticeText().contains(QStringLiteral("preference-prompt-mismatch")));
    // SFT data: a hint, and no sequences.
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QVERIFY(!s.isPreference());
    QTRY_VERIFY(v.noticeText().contains(QStringLiteral("Open a preference dataset")));
    QCOMPARE(v.chosen().batchSize(), int64_t(0));
  }

  void teachingStepsDriveTheViews() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    const auto steps = TeachingView::steps();
    QVERIFY(steps.size() >= 7);
    for (int i = 0; i < int(steps.size()); ++i) {
      w.teachingView()->goToStep(i);
      QCOMPARE(s.collatorSpec(), steps[size_t(i)].collator);
      QCOMPARE(w.collatorBox()->currentData().toString(), steps[size_t(i)].collator);
    }
    w.teachingView()->goToStep(3);
    QVERIFY(w.softmaxView()->teachingExample());
    w.teachingView()->goToStep(2); // grading the closing token: a closing position is selected
    QVERIFY(s.selectedPosition() >= 0);
    QVERIFY(s.batch().meta[size_t(s.batchRow())][size_t(s.selectedPosition())].closesReply);
  }

  void gridZoomsAndPans() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    AttentionGridCanvas* g = w.attentionGrid();
    const double n = double(g->gridSize());
    const double before = g->cellPixels();
    QWheelEvent wheel(QPointF(g->width() / 2, g->height() / 2),
                      g->mapToGlobal(QPointF(g->width() / 2, g->height() / 2)), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(g, &wheel);
    QTRY_VERIFY(g->cellPixels() > before * 1.4);
    // Zooming keeps the area's aspect: the short side of the area zooms first.
    QVERIFY(g->viewRect().width() < n || g->viewRect().height() < n);
    g->setViewRect(QRectF(0, 0, 8, 8));
    const QRectF v = g->viewRect();
    QTest::mousePress(g, Qt::LeftButton, {}, QPoint(200, 200));
    QTest::mouseMove(g, QPoint(100, 100));
    QTest::mouseRelease(g, Qt::LeftButton, {}, QPoint(100, 100));
    QVERIFY(g->viewRect().x() > v.x());
    g->fitAll();
    QCOMPARE(g->viewRect().width(), n);
  }

  void tokenLengthFilterArrivesAsynchronously() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    std::vector<int> lengths;
    for (int r = 0; r < s.rowCount(); ++r)
      lengths.push_back(int(s.pipeline()->encode(s.conversation(r)).tokens.size()));
    std::vector<int> sorted = lengths;
    std::sort(sorted.begin(), sorted.end());
    QVERIFY2(sorted.front() < sorted.back(), "the demo rows need different lengths for this test");
    const int threshold = sorted[sorted.size() / 2];
    w.minTokensBox()->setValue(threshold);
    // Measured in a worker: the value change returns at once, the filter follows when it is done.
    QVERIFY(w.tokenLengthsPending());
    QTRY_VERIFY(!w.tokenLengthsPending());
    auto check = [&] {
      std::vector<int> expected;
      for (int r = 0; r < int(lengths.size()); ++r)
        if (lengths[size_t(r)] >= threshold) expected.push_back(r);
      return w.visibleRows() == expected && !expected.empty() && expected.size() < lengths.size();
    };
    QVERIFY(check());
    // A dataset change cancels the run in flight; the new run's result is the one applied.
    w.minTokensBox()->setValue(0);
    w.minTokensBox()->setValue(threshold + 1);
    w.minTokensBox()->setValue(threshold); // lengths are cached: no new run
    QVERIFY(!w.tokenLengthsPending());
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QVERIFY(w.tokenLengthsPending());
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QTRY_VERIFY(!w.tokenLengthsPending());
    QVERIFY(check());
  }

  void lintFollowsQuickRowSwitchesAndDropsStaleResults() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("buggy-max-length-all-ones")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.setBatchSize(1); // every row its own batch, so each switch is a new batch
    QVERIFY(s.rowCount() >= 4);
    s.selectRow(0);
    LintView panel(&s);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QList<int> shownRows;
    connect(&panel, &LintView::reportChanged, &panel, [&] { shownRows << panel.reportedRow(); });
    panel.lintCurrentBatchAsync(); // row 0 in flight ...
    s.selectRow(1);                // ... and stale at once
    s.selectRow(2);
    s.selectRow(3);
    QVERIFY(panel.lintPending());
    QTRY_VERIFY(!panel.lintPending());
    QCOMPARE(shownRows, QList<int>{3}); // one report, for the row selected last
    QCOMPARE(panel.reportedRow(), s.selectedRow());
    // The same findings a synchronous lint of the selected batch gives.
    std::vector<std::string> async;
    for (const Finding& f : panel.report().findings) async.push_back(f.rule + ":" + f.message);
    QVERIFY(!async.empty());
    panel.lintCurrentBatch();
    std::vector<std::string> sync;
    for (const Finding& f : panel.report().findings) sync.push_back(f.rule + ":" + f.message);
    QCOMPARE(async, sync);
    // Jumping to a finding of another row still works, and does not re-lint.
    s.selectRow(0);
    QTRY_VERIFY(!panel.lintPending());
    QCOMPARE(panel.reportedRow(), 0);
    int index = -1;
    for (size_t i = 0; i < panel.report().findings.size(); ++i)
      if (panel.report().findings[i].position) {
        index = int(i);
        break;
      }
    QVERIFY(index >= 0);
    const Finding f = panel.report().findings[size_t(index)];
    s.selectRow(2);             // a lint is now scheduled for row 2 ...
    panel.selectFinding(index); // ... and dropped by the jump back to row 0's finding
    QCOMPARE(s.selectedRow(), 0);
    QCOMPARE(s.selectedPosition(), int(*f.position));
    QTRY_VERIFY(!panel.lintPending());
    QCOMPARE(panel.reportedRow(), 0);
    QCOMPARE(panel.list()->currentRow(), index);
  }

  void compareCountsLongRowsInAWorker() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    CompareView c(&s);
    c.setCollators(QStringLiteral("default"), QStringLiteral("buggy-max-length-all-ones"));
    const int64_t expected = c.differingCells();
    QVERIFY(expected > 0);
    const int saved = CompareView::asyncCellThreshold();
    CompareView::setAsyncCellThreshold(0); // every row counts as long
    c.setCollators(QStringLiteral("default"), QStringLiteral("buggy-max-length-all-ones"));
    QVERIFY(c.cellDiffPending());
    QVERIFY(c.summaryText().contains(QStringLiteral("counting"), Qt::CaseInsensitive));
    QTRY_VERIFY(!c.cellDiffPending());
    QCOMPARE(c.differingCells(), expected);
    // A newer comparison wins over one still counting.
    c.setCollators(QStringLiteral("default"), QStringLiteral("buggy-max-length-all-ones"));
    c.setCollators(QStringLiteral("default"), QStringLiteral("default"));
    QTRY_VERIFY(!c.cellDiffPending());
    QCOMPARE(c.differingCells(), int64_t(0));
    CompareView::setAsyncCellThreshold(saved);
  }

  void filtersNarrowTheList() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    const int all = w.visibleRowCount();
    w.searchBox()->setText(QStringLiteral("padding"));
    QTRY_VERIFY(w.visibleRowCount() < all);
    QVERIFY(w.visibleRowCount() > 0);
    w.searchBox()->clear();
    w.minMessagesBox()->setValue(4);
    QTRY_VERIFY(w.visibleRowCount() < all);
    w.minMessagesBox()->setValue(0);
    w.minTokensBox()->setValue(100000);
    QTRY_COMPARE(w.visibleRowCount(), 0);
  }

  void exportsAreValid_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("file");
    QTest::newRow("tokens png") << QStringLiteral("tokens") << QStringLiteral("t.png");
    QTest::newRow("attention svg") << QStringLiteral("attention") << QStringLiteral("a.svg");
    QTest::newRow("softmax svg") << QStringLiteral("softmax") << QStringLiteral("s.svg");
    QTest::newRow("loss png") << QStringLiteral("loss") << QStringLiteral("l.png");
    QTest::newRow("window png") << QStringLiteral("window") << QStringLiteral("w.png");
    QTest::newRow("report html") << QStringLiteral("report") << QStringLiteral("r.html");
  }
  void exportsAreValid() {
    QFETCH(QString, view);
    QFETCH(QString, file);
    QTemporaryDir dir;
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QString path = dir.filePath(file);
    QString error;
    QVERIFY2(w.exportView(view, path, &error), qPrintable(error));
    if (file.endsWith(QLatin1String(".png"))) {
      QImage img(path);
      QVERIFY(!img.isNull());
      QVERIFY(distinctColours(img) > 4);
    } else if (file.endsWith(QLatin1String(".svg"))) {
      QSvgRenderer svg(path);
      QVERIFY(svg.isValid());
      QVERIFY(svg.defaultSize().width() > 100);
    } else {
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QString html = QString::fromUtf8(f.readAll());
      QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
      QVERIFY(html.contains(QStringLiteral("data:image/png;base64,")));
      QVERIFY(html.contains(QStringLiteral("class=\"chip")));
      QVERIFY(html.contains(QStringLiteral("<h2>Loss</h2>")));
      QVERIFY(html.contains(QStringLiteral("</html>")));
    }
  }

  // File > Export training template, driven through its public method (no dialog): the stock llama3
  // template comes out with {% generation %} blocks and renders the same text; a template that has
  // markers already is refused and nothing is written.
  void exportTrainingTemplate_data() {
    QTest::addColumn<QString>("templ");
    QTest::addColumn<bool>("written");
    QTest::newRow("llama3 patched") << QStringLiteral("llama3") << true;
    QTest::newRow("chatml patched") << QStringLiteral("chatml") << true;
    QTest::newRow("markers already: refused") << QStringLiteral("chatml-assistant-mask") << false;
  }
  void exportTrainingTemplate() {
    QFETCH(QString, templ);
    QFETCH(bool, written);
    QTemporaryDir dir;
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QVERIFY(s.setTemplate(templ));
    MainWindow w(&s);
    const QString path = dir.filePath(QStringLiteral("training.jinja"));
    QString error;
    QCOMPARE(w.exportTrainingTemplate(path, &error), written);
    QCOMPARE(QFileInfo::exists(path), written);
    if (!written) {
      QVERIFY2(error.contains(QStringLiteral("generation")), qPrintable(error));
      return;
    }
    std::shared_ptr<ChatTemplate> original = loadChatTemplate(templ.toStdString());
    std::shared_ptr<ChatTemplate> patched = loadChatTemplate(path.toStdString());
    QVERIFY(patched->hasGenerationMarkers());
    const std::vector<Message> chat = {{"user", "Hi", nullptr},
                                       {"assistant", "Sure.", nullptr},
                                       {"user", "Thanks", nullptr},
                                       {"assistant", "Bye.", nullptr}};
    RenderOptions ro;
    ro.variables = original->defaultVariables();
    ro.computeMessageSpans = false;
    const RenderResult a = original->render(chat, ro), b = patched->render(chat, ro);
    QCOMPARE(b.text, a.text);
    QCOMPARE(int(b.generationSpans->size()), 2);
  }

  void snapshotsHaveContent_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("collator");
    QTest::addColumn<QString>("theme");
    QTest::addColumn<QRgb>("expected");
    const QRgb blue = palette::cellColour(CellState::Allowed).rgb();
    // Right padding: pad keys are blocked (or attended) only on pad query rows, which are greyed.
    const QRgb orange = palette::greyedForPadQuery(palette::cellColour(CellState::Padding)).rgb();
    QTest::newRow("attention default: allowed blue and padding orange")
        << QStringLiteral("attention") << QStringLiteral("default") << QStringLiteral("light") << orange;
    QTest::newRow("attention all-ones: allowed blue")
        << QStringLiteral("attention") << QStringLiteral("buggy-max-length-all-ones") << QStringLiteral("light")
        << blue;
    QTest::newRow("attention dark") << QStringLiteral("attention") << QStringLiteral("default")
                                    << QStringLiteral("dark") << blue;
    QTest::newRow("tokens") << QStringLiteral("tokens") << QStringLiteral("default") << QStringLiteral("light")
                            << palette::roleColour(PositionKind::Assistant).rgb();
    QTest::newRow("softmax") << QStringLiteral("softmax") << QStringLiteral("default") << QStringLiteral("light")
                             << QColor(0x1f, 0x5f, 0xa0).rgb();
    QTest::newRow("loss") << QStringLiteral("loss") << QStringLiteral("default") << QStringLiteral("light")
                          << palette::roleColour(PositionKind::Assistant).rgb();
    QTest::newRow("lint") << QStringLiteral("lint") << QStringLiteral("buggy-max-length-all-ones")
                          << QStringLiteral("light") << QColor(0xc0, 0x1f, 0x20).rgb();
    QTest::newRow("window") << QStringLiteral("window") << QStringLiteral("default") << QStringLiteral("light") << blue;
  }
  void snapshotsHaveContent() {
    QFETCH(QString, view);
    QFETCH(QString, collator);
    QFETCH(QString, theme);
    QFETCH(QRgb, expected);
    QTemporaryDir dir;
    SnapshotArgs a;
    a.view = view.toStdString();
    a.out = dir.filePath(QStringLiteral("snap.png")).toStdString();
    a.inputs.collatorSpec = collator.toStdString();
    a.row = 1;
    a.width = 900;
    a.height = 600;
    a.theme = theme.toStdString();
    std::ostringstream out, err;
    CommandIO io{out, err, false, false};
    QCOMPARE(runSnapshot(a, io), 0);
    palette::setTheme(palette::Theme::Light);
    QImage img(QString::fromStdString(a.out));
    QVERIFY(!img.isNull());
    QVERIFY(img.width() >= 900);
    QVERIFY2(distinctColours(img) > 5, "blank image");
    QVERIFY2(countColour(img, expected) > 20,
             qPrintable(QStringLiteral("colour %1 missing").arg(QColor(expected).name())));
    if (view == QLatin1String("attention") && collator == QLatin1String("default"))
      QVERIFY(countColour(img, palette::cellColour(CellState::Allowed).rgb()) > 20);
  }

  // Every row of the view registry: shown by name, exported from the window and snapshotted off
  // screen, each with content. A new view is tested here by being in the table.
  void everyRegisteredViewShowsExportsAndSnapshots_data() {
    QTest::addColumn<QString>("view");
    for (const ViewSpec& v : viewRegistry()) QTest::newRow(qPrintable(v.name)) << v.name;
  }
  void everyRegisteredViewShowsExportsAndSnapshots() {
    QFETCH(QString, view);
    const ViewSpec* spec = findView(view);
    QVERIFY(spec);
    QVERIFY(viewNames().contains(view));
    QVERIFY(!spec->title.isEmpty());
    QCOMPARE(spec->dockName.isEmpty(), spec->area == Qt::NoDockWidgetArea);
    QCOMPARE(bool(spec->paint), spec->offscreen == OffscreenRender::Paint);
    QTemporaryDir dir;
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.view(view));
    if (QDockWidget* d = w.dock(view)) {
      QCOMPARE(w.dockWidgetArea(d), spec->area);
      QCOMPARE(d->windowTitle(), spec->title);
      w.showView(view);
      QTRY_VERIFY(w.view(view)->isVisible());
      QVERIFY(!w.view(view)->visibleRegion().isEmpty()); // raised above its tabbed siblings
    } else {
      QCOMPARE(w.view(view)->window(), &w); // a centre view
    }
    const QString exported = dir.filePath(QStringLiteral("export.png"));
    QString error;
    QVERIFY2(w.exportView(view, exported, &error), qPrintable(error));
    QVERIFY(distinctColours(QImage(exported)) > 4);
    SnapshotArgs a;
    a.view = view.toStdString();
    a.out = dir.filePath(QStringLiteral("snap.png")).toStdString();
    a.width = 700;
    a.height = 500;
    std::ostringstream out, err;
    CommandIO io{out, err, false, false};
    QCOMPARE(runSnapshot(a, io), 0);
    const QImage snap(QString::fromStdString(a.out));
    if (spec->offscreen == OffscreenRender::Window) // the window keeps its minimum size
      QVERIFY(snap.width() >= 700 && snap.height() >= 500);
    else
      QCOMPARE(snap.size(), QSize(700, 500));
    QVERIFY2(distinctColours(snap) > 4, "blank snapshot");
  }

  // docs/cli.md's `--view V` row names exactly the registry's views and `window` (viewNames(); the
  // page orders them for reading): a view added, renamed or removed without the docs fails here.
  void viewTableInDocs() {
    QFile doc(QStringLiteral(MASKSCOPE_SOURCE_DIR "/docs/cli.md"));
    QVERIFY(doc.open(QIODevice::ReadOnly | QIODevice::Text));
    QString row;
    for (const QString& line : QString::fromUtf8(doc.readAll()).split(QLatin1Char('\n')))
      if (line.startsWith(QLatin1String("| `--view V` |"))) row = line;
    QVERIFY2(!row.isEmpty(), "docs/cli.md has no `--view V` row");
    const QString names = row.section(QLatin1Char('|'), 2, 2).section(QLatin1String("; "), 0, 0);
    QStringList documented;
    static const QRegularExpression quoted(QStringLiteral("`([a-z]+)`"));
    for (const QRegularExpressionMatch& m : quoted.globalMatch(names)) documented << m.captured(1);
    QStringList registered = viewNames();
    documented.sort();
    registered.sort();
    QCOMPARE(documented, registered);
  }

  // View > Reset layout puts every dock back where a first run has it, whatever the user did.
  void resetLayoutRestoresTheDocks() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    // Findings in the lint panel in front: without any it is its one line (test_fit_at_1024).
    QVERIFY(s.setCollator(QStringLiteral("buggy-max-length-all-ones")));
    MainWindow w(&s);
    w.resize(1024, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QDockWidget* dataset = w.dock(QStringLiteral("dataset"));
    QDockWidget* lint = w.dock(QStringLiteral("lint"));
    QDockWidget* softmax = w.dock(QStringLiteral("softmax"));
    QDockWidget* loss = w.dock(QStringLiteral("loss"));
    QVERIFY(dataset && lint && softmax && loss);
    QList<QDockWidget*> bottom;
    for (const ViewSpec& v : viewRegistry())
      if (v.area == Qt::BottomDockWidgetArea) bottom << w.dock(v.name);
    QVERIFY(bottom.size() >= 3);
    QTRY_VERIFY(w.dockSizesApplied()); // the first-run sizes come from a queued call after show
    QVERIFY(lint->height() >= 180);
    const int defaultHeight = lint->height();
    // The user moves softmax to the right, floats loss, closes the dataset and drags the panels down.
    w.removeDockWidget(softmax);
    w.addDockWidget(Qt::RightDockWidgetArea, softmax);
    softmax->show();
    loss->setFloating(true);
    dataset->close();
    w.resizeDocks({lint}, {100}, Qt::Vertical);
    QTRY_COMPARE(w.dockWidgetArea(softmax), Qt::RightDockWidgetArea);
    QTRY_VERIFY(lint->height() < defaultHeight - 50);
    QVERIFY(loss->isFloating());
    QVERIFY(!dataset->isVisible());

    auto* reset = w.findChild<QAction*>(QStringLiteral("resetLayoutAction"));
    QVERIFY(reset);
    reset->trigger();
    QTRY_VERIFY(w.dockSizesApplied());
    QTRY_COMPARE(w.dockWidgetArea(softmax), Qt::BottomDockWidgetArea);
    QVERIFY(!loss->isFloating());
    QTRY_VERIFY(dataset->isVisible());
    QCOMPARE(w.dockWidgetArea(dataset), Qt::LeftDockWidgetArea);
    const QList<QDockWidget*> tabs = w.tabifiedDockWidgets(bottom.first());
    for (QDockWidget* d : bottom.mid(1)) QVERIFY2(tabs.contains(d), qPrintable(d->objectName()));
    QTRY_VERIFY2(std::abs(lint->height() - defaultHeight) <= 8, // the first-run height again
                 qPrintable(QStringLiteral("%1 vs %2").arg(lint->height()).arg(defaultHeight)));
    QVERIFY(!lint->visibleRegion().isEmpty()); // the first panel in front
  }

  void snapshotRejectsBadInput() {
    SnapshotArgs a;
    a.out = "/tmp/never.png";
    std::ostringstream out, err;
    CommandIO io{out, err, false, false};
    a.view = "nonsense";
    QVERIFY_THROWS_EXCEPTION(std::exception, runSnapshot(a, io));
    a.view = "tokens";
    a.row = 100000;
    QVERIFY_THROWS_EXCEPTION(std::exception, runSnapshot(a, io));
  }

  void themesPassContrast_data() {
    QTest::addColumn<bool>("dark");
    QTest::newRow("light") << false;
    QTest::newRow("dark") << true;
  }
  void themesPassContrast() {
    QFETCH(bool, dark);
    const auto t = dark ? palette::Theme::Dark : palette::Theme::Light;
    palette::setTheme(t);
    const QPalette p = palette::qtPalette(t);
    const QColor base = p.color(QPalette::Base), window = p.color(QPalette::Window);
    for (const QColor& bg : {base, window}) {
      QVERIFY(palette::contrastRatio(p.color(QPalette::Text), bg) >= 4.5);
      QVERIFY(palette::contrastRatio(p.color(QPalette::WindowText), bg) >= 4.5);
      QVERIFY(palette::contrastRatio(p.color(QPalette::PlaceholderText), bg) >= 4.5);
      QVERIFY(palette::contrastRatio(palette::graded(), bg) >= 4.5);
      QVERIFY(palette::contrastRatio(palette::warningText(), bg) >= 4.5);
    }
    QVERIFY(palette::contrastRatio(p.color(QPalette::HighlightedText), p.color(QPalette::Highlight)) >= 4.5);
    QVERIFY(palette::contrastRatio(p.color(QPalette::ButtonText), p.color(QPalette::Button)) >= 4.5);
    QCOMPARE(palette::contrastRatio(Qt::black, Qt::white), 21.0);
  }

  // Legend swatches are painted in the theme: a live switch repaints them, and back again.
  void legendFollowsTheTheme() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    QList<QLabel*> swatches;
    for (QLabel* l : w.findChildren<QLabel*>())
      if (l->property("cellClass").isValid()) swatches << l;
    QVERIFY(swatches.size() >= 6);
    QList<QImage> light;
    for (QLabel* l : swatches) light << l->pixmap().toImage();
    w.setDarkTheme(true);
    int changed = 0;
    for (int i = 0; i < swatches.size(); ++i) {
      const QImage dark = swatches[i]->pixmap().toImage();
      changed += dark != light[i];
      if (swatches[i]->property("greyed").toBool()) continue;
      const QRgb fill = palette::cellClassColour(CellClass(swatches[i]->property("cellClass").toInt())).rgb();
      QVERIFY2(countColour(dark, fill, 2) > 0, qPrintable(swatches[i]->objectName())); // the dark colour
    }
    QVERIFY(changed >= swatches.size() - 1); // every class has its own dark colour (allowed may share)
    w.setDarkTheme(false);
    for (int i = 0; i < swatches.size(); ++i) QCOMPARE(swatches[i]->pixmap().toImage(), light[i]);
  }

  // The picker lists builtin:demo, the recently used and the cached tokenizers by folder or model
  // name; choosing one switches the session, and builtin:demo is always there to go back to.
  void tokenizerPickerListsBuiltinRecentAndCached() {
    const QString real = QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/qwen3");
    if (!QFileInfo::exists(real + QStringLiteral("/tokenizer.json")))
      QFAIL(qPrintable(QStringLiteral("missing %1: run tools/fetch-tokenizers.sh").arg(real)));
    QTemporaryDir cache;
    QVERIFY(QDir().mkpath(cache.filePath(QStringLiteral("maskscope/tokenizers"))));
    QVERIFY(QFile::link(real, cache.filePath(QStringLiteral("maskscope/tokenizers/qwen3"))));
    QVERIFY(QFile::link(real, cache.filePath(QStringLiteral("maskscope/tokenizers/qwen3-copy-with-longer-name"))));
    QVERIFY(QDir().mkpath(cache.filePath(QStringLiteral("maskscope/tokenizers/empty-folder"))));
    const QString snap = cache.filePath(QStringLiteral("huggingface/hub/models--Org--Tiny-Chat/snapshots/0123abc"));
    QVERIFY(QDir().mkpath(snap));
    QVERIFY(QFile::link(real + QStringLiteral("/tokenizer.json"), snap + QStringLiteral("/tokenizer.json")));
    const QByteArray oldCache = qgetenv("XDG_CACHE_HOME");
    qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
    qunsetenv("HF_HOME");
    qunsetenv("HF_HUB_CACHE");

    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    TokenizerPicker* picker = w.tokenizerBox();
    QStringList labels;
    for (int i = 0; i < picker->count(); ++i) labels << picker->itemText(i);
    qputenv("XDG_CACHE_HOME", oldCache);
    QCOMPARE(picker->currentText(), QStringLiteral("builtin:demo"));
    QVERIFY2(labels.contains(QStringLiteral("qwen3")), qPrintable(labels.join(QLatin1Char('|'))));
    QVERIFY2(labels.contains(QStringLiteral("Org/Tiny-Chat")), qPrintable(labels.join(QLatin1Char('|'))));
    QVERIFY(!labels.contains(QStringLiteral("qwen3-copy-with-longer-name"))); // one entry per real folder
    QVERIFY(!labels.contains(QStringLiteral("empty-folder")));
    QVERIFY(!labels.contains(QStringLiteral("tokenizer.json")));

    const int qwen = labels.indexOf(QStringLiteral("qwen3"));
    picker->setCurrentIndex(qwen);
    Q_EMIT picker->activated(qwen);
    QCOMPARE(s.tokenizerSpec(), cache.filePath(QStringLiteral("maskscope/tokenizers/qwen3")));
    QCOMPARE(picker->currentText(), QStringLiteral("qwen3"));
    QCOMPARE(picker->recent(), QStringList{s.tokenizerSpec()});

    // builtin:tiny refuses a tokenizer it was not trained on, naming the one it needs.
    s.setModelSpec(QStringLiteral("builtin:tiny"));
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("builtin:demo")),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("qwen3")));
    QVERIFY(s.modelSpec().isEmpty()); // refused, so choosing it again retries
    QVERIFY(w.modelTokenizerProblem(QStringLiteral("/some/model/folder")).isEmpty()); // only builtin:tiny is known

    const int demo = picker->indexOfSpec(QStringLiteral("builtin:demo"));
    QVERIFY(demo >= 0);
    Q_EMIT picker->activated(demo);
    QCOMPARE(s.tokenizerSpec(), QStringLiteral("builtin:demo"));
    QCOMPARE(picker->currentText(), QStringLiteral("builtin:demo"));
    QVERIFY(w.modelTokenizerProblem(QStringLiteral("builtin:tiny")).isEmpty());
    QVERIFY(picker->indexOfSpec(cache.filePath(QStringLiteral("maskscope/tokenizers/qwen3"))) >= 0); // recent
  }

  void tokenizerNames_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("name");
    QTest::newRow("builtin") << QStringLiteral("builtin:demo") << QStringLiteral("builtin:demo");
    QTest::newRow("hub-snapshot-file") << QStringLiteral(
                                              "/c/hub/models--Qwen--Qwen3-0.6B/snapshots/ab12/tokenizer.json")
                                       << QStringLiteral("Qwen/Qwen3-0.6B");
    QTest::newRow("folder-file") << QStringLiteral("/models/llama3/tokenizer.model") << QStringLiteral("llama3");
    QTest::newRow("other-file") << QStringLiteral("/models/llama3/custom.json") << QStringLiteral("custom.json");
  }
  void tokenizerNames() {
    QFETCH(QString, spec);
    QFETCH(QString, name);
    QCOMPARE(tokenizerDisplayName(spec), name);
  }

  // The per-token axis follows the graded terms: pads (ungraded, here at a loss of 30) must not
  // flatten the bars that count.
  void lossAxisFollowsGradedTerms_data() {
    QTest::addColumn<QString>("collator");
    QTest::addColumn<double>("axis");
    QTest::newRow("replies-graded") << QStringLiteral("default") << 1.0;
    QTest::newRow("pads-graded") << QStringLiteral("buggy-max-length-all-ones") << 30.0;
    QTest::newRow("prompt-graded") << QStringLiteral("hf-lm") << 2.0;
  }
  void lossAxisFollowsGradedTerms() {
    QFETCH(QString, collator);
    QFETCH(double, axis);
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), collator));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    LossView v(&s);
    v.setExampleLosses(2.0, 1.0, 30.0);
    QCOMPARE(v.axisMax(), axis);
  }

  // Bars and share segments have tooltips; without a model no gradient share is drawn (it is
  // measured, never the token share), and an unpacked row's "fixed" is the pads-not-graded mean.
  void lossViewTooltipsAndUnmeasuredGradient() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    LossView v(&s);
    v.resize(1000, 520);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QTRY_VERIFY(v.plotRect().width() > 100);
    const Batch& b = s.batch();
    int graded = -1;
    for (int t = 1; t < b.length() && graded < 0; ++t)
      if (b.labels.at(s.batchRow(), t) != kIgnoreIndex) graded = t;
    QVERIFY(graded > 0);
    const QRect plot = v.plotRect();
    const QPoint inBar(plot.left() + int((graded + 0.5) * plot.width() / double(b.length())), plot.bottom() - 1);
    const QString tip = v.toolTipAt(inBar); // chart coordinates, as plotRect
    QVERIFY2(tip.contains(QStringLiteral("position %1").arg(graded)), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("graded")));
    QVERIFY(!v.rowReport());
    QVERIFY(!v.rowIsPacked());
    QCOMPARE(v.fixedLoss(), v.breakdown().padsNotGraded());
    QVERIFY(!v.dilutionText().contains(QStringLiteral("gradient")));
  }

  // A packed row's "fixed" loss is the block-diagonal one: without a model there is none to show.
  void lossViewPackedRowNeedsTheBlockDiagonalLoss() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("naive-packed")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    LossView v(&s);
    QVERIFY(v.rowIsPacked());
    QVERIFY(std::isnan(v.fixedLoss()));
    LossReport r;
    r.variantLoss = {{"fixed", 1.0}, {"block_diagonal", 2.5}};
    r.gradientsComputed = true;
    r.gradNormPad = 1.0;
    r.gradNormReal = 3.0;
    v.setRowReport(r);
    QCOMPARE(v.fixedLoss(), 2.5);
    QVERIFY2(v.dilutionText().contains(QStringLiteral("25.0 % of the measured gradient")),
             qPrintable(v.dilutionText()));
    QVERIFY(v.rowReport());
    s.setCollator(QStringLiteral("default")); // a new batch drops the report
    QVERIFY(!v.rowReport());
  }

  // Compare names where its losses come from: the example values until a model is loaded.
  void compareNamesItsLossSource() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    CompareView c(&s);
    c.setCollators(QStringLiteral("default"), QStringLiteral("buggy-max-length-all-ones"));
    QVERIFY2(c.sideSummaryText(0).contains(QStringLiteral("example loss")), qPrintable(c.sideSummaryText(0)));
    QVERIFY(!c.modelLossesPending());
  }

  // `snapshot --view table --hide ...` sets the view's filters; --hide with another view is refused.
  void snapshotHonoursTableFilters() {
    QTemporaryDir dir;
    SnapshotArgs a;
    a.view = "table";
    a.hide = "system,whitespace,padding";
    a.out = dir.filePath(QStringLiteral("table.png")).toStdString();
    std::ostringstream out, err;
    CommandIO io{out, err, false, false};
    QCOMPARE(runSnapshot(a, io), 0);
    QVERIFY(!QImage(QString::fromStdString(a.out)).isNull());
    a.view = "attention";
    QVERIFY_THROWS_EXCEPTION(std::exception, runSnapshot(a, io));
    a.view = "table";
    a.hide = "system,nonsense";
    QVERIFY_THROWS_EXCEPTION(std::exception, runSnapshot(a, io));
  }

  void modelAbsentDegradesClearly() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    auto* mode = w.findChild<QComboBox*>(QStringLiteral("gridMode"));
    QVERIFY(mode);
    mode->setCurrentIndex(1); // probabilities without a model: stays on the mask, says why
    QVERIFY(!w.attentionGrid()->showsProbabilities());
    QVERIFY(!w.lossView()->fromModel());
  }
};

QTEST_MAIN(TestUi)
#include "tst_ui.moc"
