// The views a teacher reads numbers from: the position table (filters as core's, the article's
// Qwen example, copy and export), the softmax view's mask value and pad share, teaching mode's
// computed numbers and visible controls, and help (legend from the palette, first-start hint).
#include "core/commands/MaskedLmCollate.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/SoftmaxArithmetic.h"
#include "core/table/PositionTable.h"
#include "ui/shell/HelpDialog.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/views/table/PositionTableView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/Palette.h"

#include <QCheckBox>
#include <QFile>
#include <QMainWindow>
#include <QMimeData>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <set>
#include <sstream>

using namespace maskscope;

namespace {
QString dataFile(const char* name) { return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/") + QLatin1String(name); }
QString qwenDir() { return QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/qwen3"); }

std::vector<PositionTableRow> coreRows(const Session& s, const PositionTableFilter& f) {
  return buildPositionTable(s.batch(), s.batchRow(), &s.pipeline()->tokenizer(), f);
}
QString coreText(const std::vector<PositionTableRow>& rows, TableFormat format) {
  std::ostringstream out;
  writePositionTable(out, rows, format);
  return QString::fromStdString(out.str());
}
} // namespace

class TestTeachingViews : public QObject {
  Q_OBJECT
  QTemporaryDir settingsDir_;

private Q_SLOTS:
  void initTestCase() {
    // A fresh settings scope: the first-start hint must see an unset key.
    QVERIFY(settingsDir_.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir_.path());
    QCoreApplication::setOrganizationName(QStringLiteral("maskscope-test-teaching"));
    QCoreApplication::setApplicationName(QStringLiteral("maskscope-test-teaching"));
    palette::setTheme(palette::Theme::Light);
  }

  void tableFiltersMatchCore_data() {
    QTest::addColumn<QString>("collator");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("distinct"); // different row counts the four filter settings give, at least
    // Demo row 0 has no system turn (only the whitespace filter changes it); row 2 has one.
    for (const char* c : {"default", "buggy-max-length-all-ones", "axolotl-packed"})
      for (int r : {0, 2})
        QTest::newRow(qPrintable(QStringLiteral("%1 row %2").arg(QLatin1String(c)).arg(r)))
            << QString::fromLatin1(c) << r << (r == 0 ? 2 : 3);
  }
  void tableFiltersMatchCore() {
    QFETCH(QString, collator);
    QFETCH(int, row);
    QFETCH(int, distinct);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QVERIFY(s.setCollator(collator));
    s.selectRow(row);
    PositionTableView v(&s);
    std::set<size_t> counts;
    for (bool system : {false, true})
      for (bool whitespace : {false, true}) {
        v.hideSystemBox()->setChecked(system);
        v.hideWhitespaceBox()->setChecked(whitespace);
        PositionTableFilter f;
        f.hideSystem = system;
        f.hideWhitespace = whitespace;
        const size_t expected = coreRows(s, f).size();
        QTRY_COMPARE(v.rows().size(), expected);
        QCOMPARE(v.table()->model()->rowCount(), int(expected));
        counts.insert(expected);
      }
    QVERIFY2(int(counts.size()) >= distinct, "the filters should change the row count");
  }

  void qwenFruitPairAsInTheArticle() {
    if (!std::filesystem::exists(QString(qwenDir() + QStringLiteral("/tokenizer.json")).toStdString()))
      QFAIL(qPrintable(QStringLiteral("missing %1: run tools/fetch-tokenizers.sh").arg(qwenDir())));
    Session s;
    QVERIFY(s.setPipeline(qwenDir(), QStringLiteral("qwen2.5"), QStringLiteral("default")));
    QVERIFY(s.openDataset(dataFile("table/fruit-pair.jsonl")));
    PositionTableView v(&s);
    v.hideSystemBox()->setChecked(true);
    v.hideWhitespaceBox()->setChecked(true);
    QTRY_COMPARE(v.table()->model()->rowCount(), 12);
    const PositionTableCounts c = countTable(v.rows());
    QCOMPARE(c.ignored, 8);
    QCOMPARE(c.graded, 4);
    QCOMPARE(v.summaryText(), QStringLiteral("12 rows: 4 graded, 8 ignored (-100)"));
    // Row 8 (1-based, the article's numbering): "assistant", ignored; row 12: <|im_end|>, graded.
    QCOMPARE(v.table()->model()->index(7, 0).data().toString(), QStringLiteral("8"));
    QCOMPARE(v.table()->model()->index(7, 2).data().toString(), QStringLiteral("assistant"));
    QCOMPARE(v.table()->model()->index(7, 4).data().toString(), QStringLiteral("-100"));
    QCOMPARE(v.table()->model()->index(11, 0).data().toString(), QStringLiteral("12"));
    QCOMPARE(v.table()->model()->index(11, 2).data().toString(), QStringLiteral("<|im_end|>"));
    QVERIFY(v.rows()[11].graded());
    QCOMPARE(v.table()->model()->index(11, 4).data().toString(), QStringLiteral("%1 \u2713").arg(v.rows()[11].id));
    // Graded rows are visibly distinct: bold and tinted; ignored rows are not.
    QVERIFY(v.table()->model()->index(11, 2).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!v.table()->model()->index(7, 2).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(v.table()->model()->index(11, 2).data(Qt::BackgroundRole) !=
            v.table()->model()->index(7, 2).data(Qt::BackgroundRole));
  }

  void copiesTheSelection() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    PositionTableView v(&s);
    const QItemSelection rows(v.table()->model()->index(2, 0), v.table()->model()->index(3, 0));
    v.table()->selectionModel()->select(rows, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    std::unique_ptr<QMimeData> mime(v.selectionMimeData());
    const QStringList lines = mime->text().trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 3); // header + two rows
    QCOMPARE(lines[1].split(QLatin1Char('\t')).value(0), QString::number(v.rows()[2].position));
    const std::vector<PositionTableRow> picked = {v.rows()[2], v.rows()[3]};
    QCOMPARE(QString::fromUtf8(mime->data(QStringLiteral("text/markdown"))), coreText(picked, TableFormat::Markdown));
  }

  void exportsAsCore_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("format");
    QTest::newRow("markdown") << QStringLiteral("t.md") << int(TableFormat::Markdown);
    QTest::newRow("csv") << QStringLiteral("t.csv") << int(TableFormat::Csv);
    QTest::newRow("html") << QStringLiteral("t.html") << int(TableFormat::Html);
    QTest::newRow("unknown extension refused") << QStringLiteral("t.txt") << -1;
  }
  void exportsAsCore() {
    QFETCH(QString, file);
    QFETCH(int, format);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    PositionTableView v(&s);
    v.hideSystemBox()->setChecked(true);
    QTemporaryDir dir;
    const QString path = dir.filePath(file);
    QString error;
    QCOMPARE(v.exportTo(path, &error), format >= 0);
    if (format < 0) {
      QVERIFY(error.contains(QStringLiteral(".md")));
      QVERIFY(!QFile::exists(path));
      return;
    }
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), coreText(v.rows(), TableFormat(format)));
  }

  void softmaxShowsMaskValueAndPadShare() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QVERIFY(s.setCollator(QStringLiteral("buggy-max-length-all-ones")));
    SoftmaxView v(&s);
    const int last = int(s.batch().length()) - 1; // a pad query: the all-ones mask lets it attend the pads
    s.selectPosition(last);
    QTRY_COMPARE(v.query(), last);
    QCOMPARE(v.current().maskValue, -3.4028234663852886e38);
    const std::vector<uint8_t> pads = detectPaddingOfRow(s.batch(), s.batchRow(), s.batch().padTokenId);
    double byHand = 0;
    int padKeys = 0;
    for (size_t k = 0; k < pads.size(); ++k)
      if (pads[k]) {
        byHand += v.current().weights[k];
        ++padKeys;
      }
    QVERIFY(padKeys > 0);
    QVERIFY(byHand > 0.0);
    QVERIFY(qAbs(v.padShare() - byHand) < 1e-12);
    // With the correct collator the same query attends no pad.
    QVERIFY(s.setCollator(QStringLiteral("default")));
    s.selectPosition(int(s.batch().length()) - 1);
    QTRY_COMPARE(v.padShare(), 0.0);
    v.showTeachingExample();
    QVERIFY(qAbs(v.current().weights[0] - 0.731059) < 1e-6);
    QCOMPARE(v.current().weights[2], 0.0);
  }

  void teachingNumbersAreTheOnesOnScreen() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    TeachingView* t = w.teachingView();
    const QRegularExpression position(QStringLiteral("\\bposition (\\d+)"), QRegularExpression::CaseInsensitiveOption),
        positionId(QStringLiteral("\\bposition id (\\d+)"));
    int quoted = 0;
    for (int i = 0; i < t->stepCount(); ++i) {
      t->goToStep(i);
      const QString text = t->currentText();
      for (auto m = position.globalMatch(text); m.hasNext();) {
        const int p = m.next().captured(1).toInt();
        QVERIFY2(p == s.selectedPosition(), qPrintable(QStringLiteral("step %1 says position %2, %3 is selected")
                                                           .arg(i + 1)
                                                           .arg(p)
                                                           .arg(s.selectedPosition())));
        QTRY_COMPARE(w.tokenStrip()->selectedPosition(), p);
        ++quoted;
      }
      for (auto m = positionId.globalMatch(text); m.hasNext();) {
        const int64_t id = m.next().captured(1).toLongLong();
        const Batch& b = s.batch();
        QCOMPARE(id, b.positionIds.empty() ? int64_t(s.selectedPosition())
                                           : b.positionIds.at(s.batchRow(), s.selectedPosition()));
      }
      // The step text and Next stay visible whatever panel the step brought forward.
      QTRY_VERIFY(t->isVisible());
      QVERIFY(t->nextButton()->isVisible());
      QTRY_VERIFY(w.view(TeachingView::steps()[size_t(i)].view)->isVisible()); // beside the panel it opened
    }
    QVERIFY2(quoted >= 4, "steps 2, 3, 5 and 7 name their selected position");
  }

  // Stepping through in order, every step's strip shows real tokens, not only pads (the loss-dilution
  // step kept the position an earlier left-padded step selected, a pad of its own batch).
  void everyStepShowsRealTokens() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.resize(1024, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    TeachingView* t = w.teachingView();
    TokenStripView* strip = w.tokenStrip();
    for (int i = 0; i < t->stepCount(); ++i) {
      t->goToStep(i);
      for (int k = 0; k < 3; ++k) QCoreApplication::processEvents();
      const std::vector<uint8_t> pads = paddingOfRow(s.batch(), s.batchRow());
      int real = 0, shown = 0;
      for (int p = 0; p < strip->positionCount(); ++p) {
        if (!strip->viewport()->rect().intersects(strip->chipRect(p))) continue;
        ++shown;
        real += size_t(p) < pads.size() && !pads[size_t(p)];
      }
      QVERIFY2(shown > 0 && real > 0,
               qPrintable(QStringLiteral("step '%1': %2 chips shown, %3 of them real (selected %4)")
                              .arg(TeachingView::steps()[size_t(i)].title)
                              .arg(shown)
                              .arg(real)
                              .arg(s.selectedPosition())));
    }
  }

  void teachingHasTheNewSteps() {
    const auto steps = TeachingView::steps();
    QStringList titles;
    for (const TeachingStep& s : steps) titles << s.title;
    QVERIFY(titles.join(QLatin1Char('|')).contains(QStringLiteral("Teacher forcing")));
    QVERIFY(titles.join(QLatin1Char('|')).contains(QStringLiteral("BERT")));
    QCOMPARE(steps[3].view, QStringLiteral("softmax"));
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.teachingView()->goToStep(3);
    const SoftmaxRow r =
        computeSoftmaxRow({2.0, 1.0, 0.1}, {CellState::Allowed, CellState::Allowed, CellState::Future});
    QVERIFY(w.teachingView()->currentText().contains(QString::number(r.weights[0], 'f', 3)));
    QVERIFY(w.softmaxView()->teachingExample());
  }

  // The BERT aside: every number of step 10 is core's maskedLmRow on the row on screen. Another row
  // (another batch around it) gives other numbers; pads never count ("40 of this row's 268" counted 200).
  void bertAsideIsTheRowOnScreen_data() {
    QTest::addColumn<int>("row");
    for (int r : {0, 1, 2, 5}) QTest::newRow(qPrintable(QStringLiteral("demo row %1").arg(r))) << r;
  }
  void bertAsideIsTheRowOnScreen() {
    QFETCH(int, row);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    TeachingView* t = w.teachingView();
    int step = -1;
    for (int i = 0; i < t->stepCount(); ++i)
      if (TeachingView::steps()[size_t(i)].maskedLmAside) step = i;
    QVERIFY(step >= 0);
    s.selectRow(row);
    t->goToStep(step);
    const MaskedLmRow* m = s.maskedLm();
    QVERIFY(m);
    const MaskedLmRow core =
        maskedLmRow(s.batch(), s.batchRow(), maskedLmOptionsFor(s.batch(), &s.pipeline()->tokenizer(), 0));
    QCOMPARE(m->maskedAt, core.maskedAt);
    const std::vector<uint8_t> pads = paddingOfRow(s.batch(), s.batchRow());
    const int64_t real = std::count(pads.begin(), pads.end(), uint8_t(0));
    QCOMPARE(core.real, real);
    QCOMPARE(core.masked, std::max<int64_t>(1, std::llround(0.15 * double(core.candidates))));
    const QString text = t->currentText();
    for (const QString& quoted : {QStringLiteral("of its %1 real tokens").arg(real),
                                  QStringLiteral("%1 are drawn, 15 % of %2").arg(core.masked).arg(core.candidates),
                                  QStringLiteral("%1 became").arg(core.byMask),
                                  QStringLiteral("other %1 positions").arg(core.positions - core.masked),
                                  QStringLiteral("%1 (query, key) pairs instead of the causal mask's %2")
                                      .arg(real * real)
                                      .arg(core.causalPairs)})
      QVERIFY2(text.contains(quoted), qPrintable(quoted + QStringLiteral(" not in: ") + text));
    // The strip shows BERT's input and labels; the grid the bidirectional mask.
    for (int64_t p : core.maskedAt)
      if (core.choice[size_t(p)] == MlmChoice::Mask)
        QVERIFY(w.tokenStrip()->describePosition(int(p)).contains(QStringLiteral("\"[MASK]\"")));
    for (int64_t p : core.maskedAt)
      if (core.choice[size_t(p)] == MlmChoice::Mask) { // the step selects the first [MASK] chip
        QCOMPARE(s.selectedPosition(), int(p));
        break;
      }
    const EffectiveMask* mask = s.effectiveMask();
    QVERIFY(mask && mask->bidirectional);
    int64_t lastReal = -1;
    for (size_t k = 0; k < pads.size(); ++k)
      if (!pads[k]) lastReal = int64_t(k);
    QCOMPARE(mask->state(s.batchRow(), 0, lastReal), CellState::Allowed); // the first token sees the last
    // Leaving the step turns the aside off: the causal mask is back.
    t->goToStep(step + 1);
    QVERIFY(!s.maskedLm());
    QVERIFY(!s.effectiveMask()->bidirectional);
  }
  void bertAsideNumbersChangeWithTheRow() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    TeachingView* t = w.teachingView();
    int step = -1;
    for (int i = 0; i < t->stepCount(); ++i)
      if (TeachingView::steps()[size_t(i)].maskedLmAside) step = i;
    std::set<QString> texts;
    std::set<int64_t> reals;
    for (int r : {0, 1, 2, 5}) {
      s.selectRow(r);
      t->goToStep(step);
      texts.insert(t->currentText());
      reals.insert(s.maskedLm()->real);
    }
    QVERIFY2(reals.size() >= 3, "the demo rows differ in length: so must the counts");
    QCOMPARE(texts.size(), size_t(4));
  }

  void legendReadsThePalette() {
    const QString html = HelpDialog::legendHtml();
    for (PositionKind k : {PositionKind::System, PositionKind::User, PositionKind::Assistant, PositionKind::Padding})
      QVERIFY2(html.contains(palette::roleColour(k).name()), positionKindName(k));
    for (const QColor& c : {palette::graded(), palette::ignored(), palette::padding(), palette::gradedPad()})
      QVERIFY2(html.contains(c.name()), qPrintable(c.name()));
    for (CellState c : {CellState::Allowed, CellState::Future, CellState::Padding, CellState::OtherExample}) {
      QVERIFY2(html.contains(palette::cellColour(c).name()), cellStateName(c));
      QVERIFY2(html.contains(palette::cellGlyph(c)), cellStateName(c));
    }
    Session s;
    MainWindow w(&s);
    const QStringList keys = HelpDialog::shortcutLines(&w);
    QVERIFY(keys.join(QLatin1Char('\n')).contains(QStringLiteral("Next row")));
    QVERIFY(keys.join(QLatin1Char('\n')).contains(QStringLiteral("Legend and shortcuts")));
  }

  void firstStartHintShowsOnce() {
    QSettings().remove(firstStartHintKey());
    QMainWindow window;
    int opened = 0;
    QWidget* hint = showFirstStartHint(&window, [&opened] { ++opened; });
    QVERIFY(hint);
    QVERIFY(QSettings().value(firstStartHintKey()).toBool());
    auto* open = hint->findChild<QPushButton*>();
    QVERIFY(open);
    open->click();
    QCOMPARE(opened, 1);
    QVERIFY(!showFirstStartHint(&window, [&opened] { ++opened; })); // shown once
  }
};

QTEST_MAIN(TestTeachingViews)
#include "tst_teaching_views.moc"
