// The attention grid shows the bug: pads an all-ones mask lets through and packed examples that see
// each other get their own cell classes (model, tooltip, legend, pixels); boundaries of packed
// examples; the window box draws a sliding band without a model (grid and softmax view); the grid
// fills its area; compare tints differing cells; the lint panel is never stale
// after a collator change or another file; a row's template error is shown in the centre; a long
// packed row keeps its cells visible and its strip's chips measured as each token and footer is.
#include "core/lint/Lint.h"
#include "core/mask/AttentionGrid.h"
#include "core/util/Utf8.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/AttentionView.h"
#include "ui/views/attention/GridRenderer.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/Palette.h"

#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QScrollBar>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>

using namespace maskscope;

namespace {

struct ClassCount {
  int64_t counts[kCellClassCount] = {};
  int64_t padKeysAllowedAsReal = 0; // allowed cells on a pad key still drawn as plain "allowed"
};

ClassCount countClasses(const AttentionGridCanvas& g) {
  ClassCount c;
  const GridSource& s = g.gridSource();
  for (int q = 0; q < int(g.gridSize()); ++q)
    for (int k = 0; k <= q; ++k) {
      const CellClass cls = g.cellClass(q, k);
      ++c.counts[int(cls)];
      c.padKeysAllowedAsReal += s.padding[size_t(k)] && cls == CellClass::Allowed;
    }
  return c;
}

// A cell of the given class, as (key, query); (-1, -1) when none.
QPoint findCell(const AttentionGridCanvas& g, CellClass wanted) {
  for (int q = 0; q < int(g.gridSize()); ++q)
    for (int k = 0; k <= q; ++k)
      if (g.cellClass(q, k) == wanted) return {k, q};
  return {-1, -1};
}

int countNear(const QImage& img, const QColor& colour, int tolerance = 8) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QRgb c = img.pixel(x, y);
      n += std::abs(qRed(c) - colour.red()) <= tolerance && std::abs(qGreen(c) - colour.green()) <= tolerance &&
           std::abs(qBlue(c) - colour.blue()) <= tolerance;
    }
  return n;
}

QString dataFile(const char* relative) {
  return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/") + QString::fromLatin1(relative);
}

std::vector<std::string> findingKeys(const LintReport& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(f.rule + ":" + f.message);
  return out;
}

// A padding-free dump of one row: `examples` examples of `each` tokens, position_ids restarting at
// 0 per example (TRL padding_free's layout), the second half of each example graded.
void writePackedDump(const QString& path, int examples, int each) {
  std::ofstream out(path.toStdString(), std::ios::binary);
  std::string ids, labels, pos;
  for (int e = 0; e < examples; ++e)
    for (int t = 0; t < each; ++t) {
      const std::string sep = ids.empty() ? "" : ",";
      const int id = 5 + (e * 37 + t * 11) % 3990;
      ids += sep + std::to_string(id);
      labels += sep + std::to_string(t < each / 2 ? -100 : id);
      pos += sep + std::to_string(t);
    }
  out << "{\"input_ids\": [[" << ids << "]], \"labels\": [[" << labels << "]], \"position_ids\": [[" << pos << "]]}";
}

} // namespace

class TestGridViews : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void cleanup() { palette::setTheme(palette::Theme::Light); }

  // View > Attention implementation: the same packed dump (two examples, all-ones mask, position_ids
  // restarting; tests/data/mask/attention/) under each implementation: the grid, the rule line above it
  // and the mask a model run applies all follow the choice.
  void attentionImplementationMenu_data() {
    QTest::addColumn<QString>("action");
    QTest::addColumn<int>("leaking");  // cells where the second example sees the first
    QTest::addColumn<QString>("rule"); // the start of the rule line
    QTest::newRow("implied: sdpa leaks") << QStringLiteral("implied") << 12
                                         << QStringLiteral("attention: sdpa (assumed: transformers' default");
    QTest::newRow("eager leaks") << QStringLiteral("eager") << 12 << QStringLiteral("attention: eager \u2014 eager: ");
    QTest::newRow("flex_attention leaks")
        << QStringLiteral("flex_attention") << 12 << QStringLiteral("attention: flex_attention \u2014 flex_attention");
    QTest::newRow("flash_attention_2 splits at the restart")
        << QStringLiteral("flash_attention_2") << 0
        << QStringLiteral("attention: flash_attention_2 \u2014 flash_attention_2: attention_mask is all ones");
  }
  void attentionImplementationMenu() {
    QFETCH(QString, action);
    QFETCH(int, leaking);
    QFETCH(QString, rule);
    Session s;
    MainWindow window(&s);
    QVERIFY(s.openBatchDump(dataFile("mask/attention/all_ones_mask.json")));
    QAction* a = window.findChild<QAction*>(QStringLiteral("attnImplementation:") + action);
    QVERIFY(a);
    // Start from another choice so that the action changes something.
    window
        .findChild<QAction*>(QStringLiteral("attnImplementation:") +
                             (action == QStringLiteral("eager") ? QStringLiteral("sdpa") : QStringLiteral("eager")))
        ->trigger();
    a->trigger();
    QTRY_COMPARE(s.attnImplementation(), action == QStringLiteral("implied") ? QString() : action);
    QVERIFY(a->isChecked());
    const AttentionGridCanvas& g = *window.attentionView()->grid();
    QTRY_COMPARE(countClasses(g).counts[int(CellClass::AllowedOtherExample)], int64_t(leaking));
    QCOMPARE(countClasses(g).counts[int(CellClass::OtherExample)], int64_t(12 - leaking));
    QLabel* line = window.attentionView()->attentionRuleLabel();
    QTRY_VERIFY2(line->text().startsWith(rule), qPrintable(line->text()));
    QCOMPARE(line->toolTip(), s.attentionRule());
    QVERIFY(!line->isHidden()); // the implementations disagree on this batch
    // The mask a model run applies: segment ids of the effective mask.
    const std::vector<int64_t> split{1, 1, 1, 2, 2, 2, 2}, one(7, 1);
    QCOMPARE(s.modelBatch().attentionMask.values, leaking ? one : split);
  }

  // On the demo's padded, unpacked batch every implementation applies the same mask: "As the batch
  // implies" still names the implementation the grid follows, in one short line (the whole rule in its
  // tooltip); a chosen implementation shows the whole rule.
  void attentionRuleShortWhereAllAgree() {
    Session s;
    MainWindow window(&s);
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QLabel* line = window.attentionView()->attentionRuleLabel();
    QTRY_VERIFY(!s.attentionRule().isEmpty());
    QVERIFY(!s.attentionMatters());
    QVERIFY(!line->isHidden());
    QVERIFY2(line->text().startsWith(QStringLiteral("attention: sdpa (assumed: ")), qPrintable(line->text()));
    QVERIFY2(line->text().endsWith(QStringLiteral("every implementation gives this batch the same mask")),
             qPrintable(line->text()));
    QCOMPARE(line->toolTip(), s.attentionRule());
    window.findChild<QAction*>(QStringLiteral("attnImplementation:eager"))->trigger();
    QTRY_COMPARE(line->text(), s.attentionRule());
    QVERIFY(!line->isHidden());
  }

  void cellClassesShowTheBug_data() {
    QTest::addColumn<QString>("collator");
    QTest::addColumn<int>("batchRows");
    QTest::addColumn<bool>("padsAttended");
    QTest::addColumn<bool>("examplesLeak");
    QTest::addColumn<bool>("boundaries");
    QTest::addColumn<QString>("tooltip"); // the phrase a bug cell's tooltip must hold ("" = none)
    QTest::newRow("default: pads blocked, nothing leaks")
        << QStringLiteral("default") << 2 << false << false << false << QString();
    QTest::newRow("buggy all-ones: pad keys attended get their own class")
        << QStringLiteral("buggy-max-length-all-ones") << 2 << true << false << false
        << QStringLiteral("allowed, but this key is padding");
    QTest::newRow("naive-packed: examples see each other")
        << QStringLiteral("naive-packed") << 4 << false << true << true
        << QStringLiteral("allowed, but this key belongs to another example");
    QTest::newRow("buggy-no-position-reset: the collator's segments reveal the leak")
        << QStringLiteral("buggy-no-position-reset") << 4 << false << true << true
        << QStringLiteral("allowed, but this key belongs to another example");
    QTest::newRow("axolotl-packed: block diagonal, boundaries drawn, no leak")
        << QStringLiteral("axolotl-packed") << 4 << false << false << true << QString();
  }
  void cellClassesShowTheBug() {
    QFETCH(QString, collator);
    QFETCH(int, batchRows);
    QFETCH(bool, padsAttended);
    QFETCH(bool, examplesLeak);
    QFETCH(bool, boundaries);
    QFETCH(QString, tooltip);
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), collator));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.setBatchSize(batchRows);
    AttentionView pane(&s);
    pane.resize(900, 700);
    AttentionGridCanvas& g = *pane.grid();
    g.setFoldsPads(false); // the whole grid is rendered below
    QVERIFY(g.gridSize() > 0);
    const ClassCount c = countClasses(g);
    QCOMPARE(c.counts[int(CellClass::AllowedPad)] > 0, padsAttended);
    QCOMPARE(c.counts[int(CellClass::AllowedOtherExample)] > 0, examplesLeak);
    QCOMPARE(c.padKeysAllowedAsReal, int64_t(0)); // a pad column never looks like a real token
    QCOMPARE(g.exampleCount() > 1, boundaries);
    QCOMPARE(!g.exampleStarts().empty(), boundaries);
    if (!tooltip.isEmpty()) {
      const QPoint cell = findCell(g, padsAttended ? CellClass::AllowedPad : CellClass::AllowedOtherExample);
      QVERIFY(cell.x() >= 0);
      QVERIFY2(g.describeCell(cell.y(), cell.x()).contains(tooltip), qPrintable(g.describeCell(cell.y(), cell.x())));
      // The legend names the class with the same words.
      bool named = false;
      for (const QLabel* l : pane.findChildren<QLabel*>()) named = named || l->text() == tooltip;
      QVERIFY(named);
      // And the pixels show the class colour (striped, so part of the cells).
      QImage img(900, 600, QImage::Format_RGB32);
      QPainter p(&img);
      g.render(p, img.rect());
      p.end();
      const CellClass cls = padsAttended ? CellClass::AllowedPad : CellClass::AllowedOtherExample;
      // Pads attended sit on pad query rows (greyed); leaks on real rows.
      const QColor shown =
          padsAttended ? palette::greyedForPadQuery(palette::cellClassColour(cls)) : palette::cellClassColour(cls);
      QVERIFY(countNear(img, shown) > 50);
    }
  }

  // Without a model the window box draws a sliding layer's band, as `snapshot --window` does: keys
  // q - k >= W back are "outside the window" in the grid and get exactly 0 in the softmax view, whose
  // survivors renormalise. 0 restores full attention. The reference is core's grid with no window.
  void windowBoxDrawsTheBandWithoutAModel_data() {
    QTest::addColumn<int>("window");
    QTest::newRow("window 4") << 4;
    QTest::newRow("window 1: the query alone") << 1;
    QTest::newRow("window 0: full attention again") << 0;
  }
  void windowBoxDrawsTheBandWithoutAModel() {
    QFETCH(int, window);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    QSpinBox* box = w.attentionView()->windowBox();
    QVERIFY(box->isEnabled()); // no model: the user decides
    box->setValue(7);          // another band first, so that 0 has one to remove
    box->setValue(window);
    const AttentionGridCanvas& g = *w.attentionGrid();
    QTRY_COMPARE(g.window(), int64_t(window));
    const AttentionGrid full = attentionGridForRow(s.batch(), s.batchRow());
    QCOMPARE(g.gridSize(), full.size);
    int outside = 0, queryForSoftmax = -1, allowedThere = 0;
    for (int q = 0; q < int(full.size); ++q) {
      int allowed = 0;
      for (int k = 0; k < int(full.size); ++k) {
        const bool band = window > 0 && full.at(q, k) == CellState::Allowed && q - k >= window;
        QCOMPARE(g.cellClass(q, k) == CellClass::OutsideWindow, band);
        if (!band) QCOMPARE(g.cellState(q, k), full.at(q, k));
        outside += band;
        allowed += full.at(q, k) == CellState::Allowed;
      }
      if (allowed >= std::max(4, window) + 2 && queryForSoftmax < 0) {
        queryForSoftmax = q;
        allowedThere = allowed;
      }
    }
    QCOMPARE(outside > 0, window > 0);
    // The softmax view of a query with more allowed keys than the window.
    QVERIFY(queryForSoftmax >= 0);
    s.selectPosition(queryForSoftmax);
    const SoftmaxView& v = *w.softmaxView();
    QTRY_COMPARE(v.query(), queryForSoftmax);
    const SoftmaxRow& r = v.current();
    // Open keys keep their scores (only a blocked key's sum with the mask is rounded to float32).
    auto e = [&](size_t k) { return std::exp(r.scores[k] - r.scores[size_t(queryForSoftmax)]); };
    int nonZero = 0;
    double denominator = 0;
    for (size_t k = 0; k < r.weights.size(); ++k) {
      const bool open = full.at(queryForSoftmax, int64_t(k)) == CellState::Allowed &&
                        (window == 0 || queryForSoftmax - int64_t(k) < window);
      if (open) denominator += e(k);
      if (!open) QCOMPARE(r.weights[k], 0.0); // blocked keys are exactly 0
      nonZero += r.weights[k] != 0.0;
    }
    QCOMPARE(nonZero, window > 0 ? window : allowedThere);
    // Survivors renormalised: e^(s_k) over the open keys' sum, to 1e-12 (the softmax is in double).
    for (size_t k = 0; k < r.weights.size(); ++k)
      if (r.weights[k] != 0.0) {
        const double expected = e(k) / denominator;
        QVERIFY2(std::abs(r.weights[k] - expected) < 1e-12, qPrintable(QString::number(r.weights[k] - expected)));
      }
  }

  void padQueryRowsAreGreyed() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("buggy-max-length-all-ones")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    AttentionGridCanvas g(&s);
    const GridSource& src = g.gridSource();
    int padQuery = -1;
    for (int q = 0; q < int(g.gridSize()) && padQuery < 0; ++q)
      if (src.padQuery(q)) padQuery = q;
    QVERIFY(padQuery > 0);
    QVERIFY(g.describeCell(padQuery, 0).contains(QStringLiteral("this query is padding")));
    QVERIFY(!g.describeCell(0, 0).contains(QStringLiteral("this query is padding")));
  }

  void gridFillsItsArea_data() {
    QTest::addColumn<QSize>("area");
    QTest::newRow("wide 850x250") << QSize(850, 250);
    QTest::newRow("tall 300x700") << QSize(300, 700);
  }
  void gridFillsItsArea() {
    QFETCH(QSize, area);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    AttentionGridCanvas g(&s);
    g.setFoldsPads(false); // the demo's pads would be folded (demoGridStartsAtTheRealTokens, test_first_steps)
    g.resize(area);
    const int n = int(g.gridSize());
    // Fitted: the last cells sit at the area's far corner (up to its 6 px margin).
    const QSizeF cell = g.cellSize();
    const QPoint corner = g.cellAt(QPoint(area.width() - 8, area.height() - 8));
    QVERIFY2(corner.x() >= n - 2 - 2 / cell.width() && corner.y() >= n - 2 - 2 / cell.height(),
             qPrintable(QStringLiteral("%1,%2 of %3").arg(corner.x()).arg(corner.y()).arg(n)));
    QVERIFY(cell.width() * n > area.width() * 0.7);
    QVERIFY(cell.height() * n > area.height() * 0.6);
    // Zoomed in, the view takes the area's aspect: square cells.
    g.setViewRect(QRectF(0, 0, 6, 6));
    const QSizeF zoomed = g.cellSize();
    QVERIFY2(std::abs(zoomed.width() - zoomed.height()) < 0.5,
             qPrintable(QStringLiteral("%1 x %2").arg(zoomed.width()).arg(zoomed.height())));
  }

  void probabilitiesGetAColourScale_data() {
    QTest::addColumn<QString>("theme");
    QTest::newRow("light") << QStringLiteral("light");
    QTest::newRow("dark") << QStringLiteral("dark");
  }
  void probabilitiesGetAColourScale() {
    QFETCH(QString, theme);
    palette::setTheme(theme == QLatin1String("dark") ? palette::Theme::Dark : palette::Theme::Light);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    AttentionGridCanvas g(&s);
    const QSize area(700, 400);
    g.resize(area);
    const int64_t n = g.gridSize();
    // Uniform attention over the allowed keys: row q gives each of its q + 1 keys 1 / (q + 1).
    std::vector<float> probs(size_t(n * n), 0.0f);
    for (int64_t q = 0; q < n; ++q)
      for (int64_t k = 0; k <= q; ++k) probs[size_t(q * n + k)] = 1.0f / float(q + 1);
    g.setProbabilities(probs, QStringLiteral("uniform"));
    QVERIFY(g.showsProbabilities());
    QImage img(area, QImage::Format_RGB32);
    QPainter p(&img);
    g.render(p, img.rect());
    p.end();
    // The scale right of the grid holds both ends of the colour ramp; the grid is left of it.
    const QImage scale = img.copy(QRect(area.width() - 54, 0, 54, area.height()));
    QVERIFY(countNear(scale, probabilityColour(1.0), 4) > 5);
    QVERIFY(countNear(scale, probabilityColour(0.0), 4) > 5);
    QVERIFY(g.cellAt(QPoint(area.width() - 30, area.height() / 2)).x() < 0);
  }

  void compareTintsDifferingCells() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    CompareView c(&s);
    c.setCollators(QStringLiteral("default"), QStringLiteral("buggy-max-length-all-ones"));
    QVERIFY(c.differingCells() > 0);
    const GridSource& a = c.gridA()->gridSource();
    int64_t differing = 0;
    const int64_t n = std::min(a.size(), c.gridB()->gridSize());
    for (int64_t q = 0; q < n; ++q)
      for (int64_t k = 0; k <= q; ++k) differing += a.differs(q, k);
    QCOMPARE(differing, c.differingCells());
    QVERIFY(c.gridA()->describeCell(int(n - 1), int(n - 1)).contains(QStringLiteral("differs")) ||
            c.gridA()->describeCell(int(n - 1), 0).contains(QStringLiteral("differs")));
  }

  void lintPanelIsNeverStale_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<bool>("whileRunning"); // the change comes while the dataset run is in flight
    QTest::newRow("collator changed after the dataset run") << QStringLiteral("collator") << false;
    QTest::newRow("another file opened after the dataset run") << QStringLiteral("file") << false;
    QTest::newRow("collator changed during the dataset run") << QStringLiteral("collator") << true;
  }
  void lintPanelIsNeverStale() {
    QFETCH(QString, change);
    QFETCH(bool, whileRunning);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    LintView panel(&s);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.lintDataset();
    if (!whileRunning) {
      QTRY_VERIFY(panel.showsDatasetFindings());
      QVERIFY(!panel.isStale());
    }
    if (change == QLatin1String("collator"))
      s.setCollator(QStringLiteral("buggy-max-length-all-ones"));
    else
      QVERIFY(s.openDataset(dataFile("dataset/messages.jsonl")));
    // Re-linted: the batch's findings under the new settings, the summary says why the dataset's
    // findings went, and nothing is left "Linting ...".
    QTRY_VERIFY(!panel.showsDatasetFindings() && !panel.lintPending() &&
                panel.summaryText().contains(QStringLiteral("dropped")));
    QVERIFY(!panel.isStale());
    QVERIFY2(!panel.summaryText().contains(QStringLiteral("Linting")), qPrintable(panel.summaryText()));
    const std::vector<std::string> shown = findingKeys(panel.report());
    panel.lintCurrentBatch();
    QCOMPARE(shown, findingKeys(panel.report()));
    if (change == QLatin1String("collator")) QVERIFY(!shown.empty()); // the buggy collator's findings
  }

  void templateErrorIsShownInTheCentre() {
    Session s;
    QVERIFY(s.openDataset(dataFile("dataset/messages.jsonl")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.centreErrorText(), QString());
    s.setTemplate(dataFile("ui/rejecting_template.jinja"));
    QTRY_VERIFY(w.centreErrorText().contains(QStringLiteral("assistant turns are not supported")));
    QVERIFY(w.centreErrorText().contains(QStringLiteral("Row %1").arg(s.selectedRow())));
    // Back to a template that works: the message goes.
    s.setTemplate(QString());
    QTRY_COMPARE(w.centreErrorText(), QString());
    // A window opened on a session whose row already failed shows the reason too.
    s.setTemplate(dataFile("ui/rejecting_template.jinja"));
    MainWindow late(&s);
    QVERIFY(late.centreErrorText().contains(QStringLiteral("assistant turns are not supported")));
  }

  // Example boundaries are drawn while they are at least 8 px apart; 400 examples in a 2,000-token
  // row would cover the cells with dashes, so none are drawn and the caption says to zoom in.
  void denseBoundariesLeaveTheCellsVisible_data() {
    QTest::addColumn<int>("examples");
    QTest::addColumn<bool>("drawn");
    QTest::newRow("4 examples of 500: dashed") << 4 << true;
    QTest::newRow("400 examples of 5: too dense to draw") << 400 << false;
  }
  void denseBoundariesLeaveTheCellsVisible() {
    QFETCH(int, examples);
    QFETCH(bool, drawn);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("packed.json"));
    writePackedDump(path, examples, 2000 / examples);
    Session s;
    QVERIFY(s.openBatchDump(path));
    AttentionGridCanvas g(&s);
    g.resize(900, 600);
    QCOMPARE(g.exampleCount(), int64_t(examples));
    QImage img(900, 600, QImage::Format_RGB32);
    QPainter p(&img);
    g.render(p, img.rect());
    p.end();
    // The middle of the plot holds cells only, unless boundaries cross it (dashes in the text colour).
    const int dashes = countNear(img.copy(300, 200, 400, 300), g.palette().text().color(), 40);
    QVERIFY2(drawn ? dashes > 200 : dashes == 0, qPrintable(QString::number(dashes)));
  }

  // Zoomed out past 4 keys a pixel, a pixel is the mean colour of every key of its column (counted
  // run by run), not of 4 sampled keys: 400 examples of 5 tokens, 20 keys a pixel, one query a row.
  void downsampledPixelsCountEveryKey() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("packed.json"));
    writePackedDump(path, 400, 5);
    Session s;
    QVERIFY(s.openBatchDump(path));
    AttentionGridCanvas g(&s);
    const GridSource& src = g.gridSource();
    QCOMPARE(src.size(), int64_t(2000));
    const QImage img = renderGridRegion(src, QRect(0, 0, 2000, 2000), QSize(100, 2000));
    int checked = 0;
    for (int y = 3; y < 2000; y += 37)
      for (int x = 0; x < 100; ++x) {
        int64_t sum[3] = {0, 0, 0};
        for (int k = 20 * x; k < 20 * x + 20; ++k) {
          const CellClass c = src.classify(y, k);
          const QColor stripe = palette::cellClassStripe(c);
          const QColor col = (x + y) % 6 < 2 && stripe.isValid() ? stripe : palette::cellClassColour(c);
          sum[0] += col.red();
          sum[1] += col.green();
          sum[2] += col.blue();
        }
        const QRgb got = img.pixel(x, y);
        QVERIFY2(std::abs(qRed(got) - int(sum[0] / 20)) <= 1 && std::abs(qGreen(got) - int(sum[1] / 20)) <= 1 &&
                     std::abs(qBlue(got) - int(sum[2] / 20)) <= 1,
                 qPrintable(QStringLiteral("pixel %1,%2").arg(x).arg(y)));
        ++checked;
      }
    QVERIFY(checked > 5000);
  }

  // The strip measures each distinct token text once and each footer shape once: every chip is as
  // wide as its own token and footer ("index p<position id>") measured one by one.
  void stripChipsAreMeasuredAsTheirText() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("packed.json"));
    writePackedDump(path, 3, 1200); // indices and position ids of 1 to 4 digits
    Session s;
    QVERIFY(s.openBatchDump(path));
    TokenStripView strip(&s);
    strip.resize(900, 400);
    const Batch& b = s.batch();
    QCOMPARE(strip.positionCount(), int(b.length()));
    QFont small = strip.font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    QFont bold = strip.font();
    bold.setBold(true);
    const QFontMetrics fm(strip.font()), bm(bold), sm(small);
    const int minW = std::max(sm.horizontalAdvance(QStringLiteral("-100 A1")), 28);
    for (int t = 0; t < strip.positionCount(); t += 7) {
      const QString footer = QStringLiteral("%1 p%2").arg(t).arg(b.positionIds.at(0, t));
      const QString text =
          QString::fromStdString(utf8::visibleWhitespace(s.tokenText(b.inputIds.at(0, t)).toStdString()));
      const bool special = !b.meta.empty() && b.meta[0][size_t(t)].special; // bold, after a diamond
      const int textW =
          special ? bm.horizontalAdvance(QStringLiteral("\u25c6") + text) + 2 : fm.horizontalAdvance(text);
      const int expected = std::min(std::max({textW, minW, sm.horizontalAdvance(footer) + 6}) + 12, 240);
      strip.verticalScrollBar()->setValue(0);
      QCOMPARE(strip.chipRect(t).width(), expected);
    }
  }

  void openingAnotherFileClearsTheStatusMessage() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    QVERIFY(!s.openDataset(dataFile("dataset/no-such-file.jsonl")));
    QTRY_VERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("no-such-file")));
    QVERIFY(s.openDataset(dataFile("dataset/messages.jsonl")));
    QTRY_COMPARE(w.statusBar()->currentMessage(), QString());
  }
};

QTEST_MAIN(TestGridViews)
#include "tst_grid_views.moc"
