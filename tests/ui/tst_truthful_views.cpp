// Every sentence a view shows is computed from the data it describes (issue 23): pad query rows as
// the labels grade them, compare's counts defined one by one over aligned rows, the softmax view's
// headline and footer on a fully masked query, the HTML report's example losses and folded pads,
// teaching step 6's colours and pad share, and the F1 legend's hatched cells.
#include "core/forward/LossPlan.h"
#include "core/mask/CellClass.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/RowFacts.h"
#include "ui/shell/HelpDialog.h"
#include "ui/shell/HtmlReport.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/AttentionView.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/loss/LossView.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/views/table/PositionTableView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/CellSwatch.h"
#include "ui/widgets/Palette.h"

#include <QLabel>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>

using namespace maskscope;

namespace {

// The first pad query row of the grid that is (graded) / is not (unread) read by the loss; -1 if none.
int64_t padQueryRow(const GridSource& g, bool graded) {
  for (int64_t q = 0; q < g.size(); ++q)
    if (graded ? g.gradedPadQuery(q) : g.unreadPadQuery(q)) return q;
  return -1;
}

int countNear(const QImage& img, const QColor& c, int tolerance = 3) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QColor p = img.pixelColor(x, y);
      n += std::abs(p.red() - c.red()) <= tolerance && std::abs(p.green() - c.green()) <= tolerance &&
           std::abs(p.blue() - c.blue()) <= tolerance;
    }
  return n;
}

// "12.3 %" as the views print a share.
QString percent(double share) { return QString::number(100.0 * share, 'f', 1) + QStringLiteral(" %"); }

} // namespace

class TestTruthfulViews : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    palette::setTheme(palette::Theme::Light);
  }

  // labels=all grades the pads, so a pad query's output reaches the loss: its row is not greyed and
  // nothing says "output unread". With the labels masked (-100 on pads) the pad rows are unread.
  void padQueryRowsFollowTheLabels_data() {
    QTest::addColumn<QString>("collator");
    QTest::addColumn<bool>("graded"); // pad query rows whose output is graded
    QTest::newRow("labels-all") << QStringLiteral("buggy-max-length-all-ones") << true;
    QTest::newRow("labels-masked") << QStringLiteral("default") << false;
  }
  void padQueryRowsFollowTheLabels() {
    QFETCH(QString, collator);
    QFETCH(bool, graded);
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), collator));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    AttentionView view(&s);
    const AttentionGridCanvas& g = *view.grid();
    const GridSource& src = g.gridSource();
    const int64_t q = padQueryRow(src, graded);
    QVERIFY2(q > 0, "no pad query row of that kind");
    QCOMPARE(gradedAt(s.batch(), s.batchRow(), q + 1), graded); // the row's claim is the label's
    const QString tip = g.describeCell(int(q), 0);
    QVERIFY2(tip.contains(graded ? QStringLiteral("its output is graded") : QStringLiteral("reads none of its output")),
             qPrintable(tip));
    QVERIFY2(!tip.contains(QStringLiteral("never read")) || !graded, qPrintable(tip));
    // The rendered row: greyed only when unread.
    const QImage row = renderGridRegion(src, QRect(0, int(q), int(src.size()), 1), QSize(int(src.size()), 1));
    const QColor cell = palette::cellClassColour(src.classify(q, 0));
    const QColor shown = row.pixelColor(0, 0);
    QCOMPARE(shown == cell, graded);
    QCOMPARE(shown == palette::greyedForPadQuery(cell), !graded);
    // The legend names only what the row has.
    QCOMPARE(!view.gradedPadLegend()->isHidden(), graded);
    if (graded) QVERIFY(view.gradedPadLegend()->text().contains(QStringLiteral("output graded")));
  }

  // Compare: rows of different lengths are aligned at their first real token and said to be; each
  // count is its grid's (checked by hand here), and the tint covers exactly the counted cells.
  void compareCountsEachGridOverAlignedRows_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::newRow("longest-vs-max-length") << QStringLiteral("default") << QStringLiteral("buggy-max-length-all-ones");
    QTest::newRow("right-vs-left-padding") << QStringLiteral("default") << QStringLiteral("padding_side=left");
    // Pads filled with EOS instead of the pad id: masked on both sides, their own category.
    QTest::newRow("pad-id-vs-eos") << QStringLiteral("default") << QStringLiteral("pad_token=eos");
  }
  void compareCountsEachGridOverAlignedRows() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    CompareView c(&s);
    c.setCollators(a, b);
    int rowA = 0, rowB = 0;
    const Batch A = s.collateWith(a, &rowA), B = s.collateWith(b, &rowB);
    const RowComparison& cmp = c.comparison();
    // By hand: the first position of each row whose attention bit is 1 and that is not a pad.
    auto firstReal = [](const Batch& x, int r) {
      for (int64_t t = 0; t < x.length(); ++t)
        if (x.meta[size_t(r)][size_t(t)].kind != PositionKind::Padding) return t;
      return int64_t(0);
    };
    const int64_t shift = firstReal(B, rowB) - firstReal(A, rowA);
    QCOMPARE(cmp.shift, shift);
    // A label as the loss scores it: position 0's is never scored (-100 on both chips).
    auto scored = [](const Batch& x, int r, int64_t t) { return t >= 1 ? x.labels.at(r, t) : int64_t(kIgnoreIndex); };
    int64_t labels = 0, ids = 0, padIds = 0, attention = 0, common = 0;
    for (int64_t t = 0; t < A.length(); ++t) {
      const int64_t u = t + shift;
      if (u < 0 || u >= B.length()) continue;
      ++common;
      const bool masked = A.attentionMask.at(rowA, t) == 0 && B.attentionMask.at(rowB, u) == 0;
      (masked ? padIds : ids) += A.inputIds.at(rowA, t) != B.inputIds.at(rowB, u);
      labels += scored(A, rowA, t) != scored(B, rowB, u);
      attention += (A.attentionMask.at(rowA, t) != 0) != (B.attentionMask.at(rowB, u) != 0);
    }
    QCOMPARE(cmp.common, common);
    QCOMPARE(cmp.ids, ids);
    QCOMPARE(cmp.padIds, padIds);
    QCOMPARE(cmp.labels, labels);
    QCOMPARE(cmp.attention, attention);
    const QString text = c.summaryText();
    QVERIFY2(text.contains(QStringLiteral("labels at %1").arg(labels)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("input ids at %1").arg(ids)), qPrintable(text));
    if (b == QLatin1String("pad_token=eos")) { // every pad differs by its id only: counted apart, not outlined
      QVERIFY(padIds > 0);
      QCOMPARE(ids, 0);
      QVERIFY2(text.contains(QStringLiteral("Pad id differs at %1 pads").arg(padIds)), qPrintable(text));
      QVERIFY2(text.contains(QStringLiteral("%1 real positions differ").arg(cmp.positions)), qPrintable(text));
      for (int64_t t = 0; t < A.length(); ++t)
        if (A.attentionMask.at(rowA, t) == 0) QVERIFY(!c.stripA()->differsAt(int(t)));
      QVERIFY(!c.stripA()->differsAt(0)); // position 0: both labels unscored, both ids the same
    }
    QVERIFY2(text.contains(QStringLiteral("attention bits at %1").arg(attention)), qPrintable(text));
    if (A.length() != B.length() || shift != 0) {
      QVERIFY2(text.contains(QStringLiteral("aligned at their first real token")), qPrintable(text));
      QVERIFY2(text.contains(QStringLiteral("%1 only in B").arg(B.length() - common)), qPrintable(text));
    }
    // What is tinted is what is counted, in both grids.
    QTRY_VERIFY(!c.cellDiffPending());
    for (const AttentionGridCanvas* g : {c.gridA(), c.gridB()}) {
      int64_t tinted = 0;
      for (int64_t q = 0; q < g->gridSize(); ++q)
        for (int64_t k = 0; k <= q; ++k) tinted += g->gridSource().differs(q, k);
      QCOMPARE(tinted, c.differingCells());
    }
    QVERIFY2(text.contains(QStringLiteral("Attention cells: %1 of the").arg(c.differingCells())), qPrintable(text));
    // Left vs right padding of the same tokens: nothing but the padding's place differs.
    if (b == QLatin1String("padding_side=left")) {
      QCOMPARE(cmp.ids, int64_t(0));
      QCOMPARE(cmp.labels, int64_t(0));
    }
  }

  // A fully masked query (a left pad at position 0 sees only itself, a pad): its weights are uniform
  // over every key, so the headline and the footer state the same share of padding.
  void softmaxFullyMaskedQuerySaysOneShare() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("padding_side=left")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    int row = -1;
    for (int r = 0; r < s.rowCount() && row < 0; ++r) {
      s.selectRow(r);
      if (paddingOfRow(s.batch(), s.batchRow()).front()) row = r;
    }
    QVERIFY2(row >= 0, "no left-padded row");
    SoftmaxView v(&s);
    s.selectPosition(0);
    QTRY_COMPARE(v.query(), 0);
    QVERIFY(v.current().fullyMasked);
    const QString share = percent(v.padShare());
    QVERIFY(v.padShare() > 0.0);
    QVERIFY2(v.padHeadline().contains(share), qPrintable(v.padHeadline()));
    QVERIFY2(v.padText().contains(share), qPrintable(v.padText()));
    QVERIFY2(!v.footerText().contains(QStringLiteral("0 % of this query's attention")), qPrintable(v.footerText()));
    // The footer's claim about harm follows the label after the query.
    const bool graded = gradedAt(s.batch(), s.batchRow(), 1);
    QCOMPARE(v.footerText().contains(QStringLiteral("Not harmless")), graded);
  }

  // The HTML report: without a model the losses are named example values (never "measured", never a
  // gradient share), and runs of pads fold into one chip each, the positions all accounted for.
  void htmlReportNamesExamplesAndFoldsPads() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("buggy-max-length-all-ones")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    s.selectRow(1);
    LossView loss(&s);
    const ReportLoss rl{&loss.breakdown(), loss.fromModel(), loss.lossSource()};
    const QString html = htmlReport(s, nullptr, rl, QImage());
    QVERIFY(html.contains(QStringLiteral("Example values, not measured")));
    QVERIFY(html.contains(QStringLiteral("prompt 2.00, reply 1.00, pad 0.05")));
    QVERIFY(!html.contains(QStringLiteral("share of gradient")));
    QVERIFY(html.contains(QStringLiteral("share of the %1 graded positions").arg(loss.breakdown().total())));
    const int chips = int(html.count(QStringLiteral("<span class=\"chip")));
    int64_t covered = 0, folds = 0;
    const QRegularExpression fold(QStringLiteral("&hellip; (\\d+) pads"));
    for (auto it = fold.globalMatch(html); it.hasNext();) {
      covered += it.next().captured(1).toLongLong();
      ++folds;
    }
    QVERIFY(folds > 0);
    QCOMPARE(chips - folds + covered, s.batch().length()); // every position once
    const RowFacts f = rowFacts(s.batch(), s.batchRow());
    QVERIFY2(chips < f.real() + 8, qPrintable(QString::number(chips))); // pads no longer take a chip each
  }

  // Teaching step 6 names the colours the grid paints (read from the palette) and the pad share the
  // loss view shows, with its denominator.
  void teachingPaddingStepMatchesTheViews() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.teachingView()->goToStep(5);
    QTRY_COMPARE(s.collatorSpec(), QStringLiteral("buggy-max-length-all-ones"));
    const QString text = w.teachingView()->currentText();
    // The grid really paints a pad key open to a real query as "allowed, but this key is padding".
    const GridSource& g = w.attentionGrid()->gridSource();
    int64_t padKey = -1;
    for (int64_t k = 0; k < g.size() && padKey < 0; ++k)
      if (g.padQuery(k)) padKey = k;
    QVERIFY(padKey > 0);
    QCOMPARE(g.classify(g.size() - 1, padKey), CellClass::AllowedPad);
    const QColor open = palette::cellClassColour(CellClass::AllowedPad);
    QVERIFY2(text.contains(open.name()), qPrintable(text));
    QVERIFY2(text.contains(palette::cellClassStripe(CellClass::AllowedPad).name()), qPrintable(text));
    QVERIFY2(text.contains(palette::colourWord(open)), qPrintable(text));
    QVERIFY2(text.contains(palette::cellClassColour(CellClass::Padding).name()), qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("turn blue")));
    // One pad share, one denominator.
    const LossBreakdown& d = w.lossView()->breakdown();
    QVERIFY2(text.contains(QStringLiteral("pads are %1 of the row's %2 graded positions")
                               .arg(percent(d.tokenShare(RolePad)))
                               .arg(d.total())),
             qPrintable(text));
    QCOMPARE(rowFacts(s.batch(), s.batchRow()).gradedShareOf(RolePad), d.tokenShare(RolePad));
  }

  // F1's legend has every cell class the grid paints, the hatched ones as hatched swatches.
  void helpLegendHasEveryCellClass() {
    const QString html = HelpDialog::legendHtml();
    QVERIFY(html.contains(QStringLiteral("allowed, but this key is padding")));
    QVERIFY(html.contains(QStringLiteral("allowed, but this key belongs to another example")));
    QVERIFY(html.contains(palette::cellClassStripe(CellClass::AllowedPad).name()));
    QVERIFY(html.contains(QStringLiteral("output nothing reads")));
    for (int i = 0; i < kCellClassCount; ++i)
      QVERIFY2(html.contains(cellClassSwatchName(CellClass(i))), cellClassName(CellClass(i)));
    QWidget window;
    HelpDialog help(&window);
    const QImage hatched =
        help.browser()
            ->document()
            ->resource(QTextDocument::ImageResource, QUrl(cellClassSwatchName(CellClass::AllowedPad)))
            .value<QImage>();
    QVERIFY(!hatched.isNull());
    QVERIFY(countNear(hatched, palette::cellClassStripe(CellClass::AllowedPad)) > 10); // the stripes
    QVERIFY(countNear(hatched, palette::cellClassColour(CellClass::AllowedPad)) > 10);
  }

  // Found on the way: a label at position 0 is never scored, and the strip says so; compare's example
  // losses are the loss view's, edited in one place.
  void labelAtPositionZeroIsNotGraded() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("labels=all")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    TokenStripView strip(&s);
    QVERIFY(s.batch().labels.at(s.batchRow(), 0) != kIgnoreIndex);
    QVERIFY2(strip.describePosition(0).contains(QStringLiteral("never scored")), qPrintable(strip.describePosition(0)));
    QVERIFY(!strip.describePosition(0).contains(QStringLiteral("(graded)")));
  }

  // A tool call and a tool output name their function in the strip's tooltip and the table's role cell
  // (row 0 of tool-names.jsonl: get_weather then get_time, the outputs paired by place).
  void toolNamesOnScreen() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QStringLiteral("qwen2.5"), QStringLiteral("default")));
    QVERIFY(s.openDataset(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/collate/tool-names.jsonl")));
    TokenStripView strip(&s);
    PositionTableView table(&s);
    const Batch& b = s.batch();
    int firstCall = -1, firstOutput = -1;
    for (int t = 0; t < int(b.length()); ++t) {
      const PositionKind k = b.meta[size_t(s.batchRow())][size_t(t)].kind;
      if (k == PositionKind::ToolCall && firstCall < 0) firstCall = t;
      if (k == PositionKind::Tool && firstOutput < 0) firstOutput = t;
    }
    QVERIFY(firstCall >= 0 && firstOutput >= 0);
    QVERIFY2(strip.describePosition(firstCall).contains(QStringLiteral("role tool_call (calls get_weather)")),
             qPrintable(strip.describePosition(firstCall)));
    QVERIFY2(strip.describePosition(firstOutput).contains(QStringLiteral("role tool (output of get_weather)")),
             qPrintable(strip.describePosition(firstOutput)));
    QStringList roles;
    const QAbstractItemModel* m = table.table()->model();
    for (int r = 0; r < m->rowCount(); ++r) {
      const QString role = m->index(r, m->columnCount() - 1).data().toString();
      if (roles.isEmpty() || roles.back() != role) roles << role;
    }
    QVERIFY2(roles.contains(QStringLiteral("tool_call: get_time")), qPrintable(roles.join(QLatin1Char('|'))));
    QVERIFY2(roles.contains(QStringLiteral("tool: get_time")), qPrintable(roles.join(QLatin1Char('|'))));
  }

  void compareUsesTheLossViewsExampleLosses() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    LossView loss(&s);
    CompareView c(&s);
    c.setCollators(QStringLiteral("default"), QStringLiteral("hf-lm"));
    loss.setExampleLosses(3.0, 0.5, 0.05);
    c.setCollators(QStringLiteral("default"), QStringLiteral("hf-lm"));
    QVERIFY2(c.sideSummaryText(0).contains(QStringLiteral("prompt 3.00, reply 0.50")),
             qPrintable(c.sideSummaryText(0)));
    QCOMPARE(s.exampleLosses().prompt, 3.0);
  }
};

QTEST_MAIN(TestTruthfulViews)
#include "tst_truthful_views.moc"
