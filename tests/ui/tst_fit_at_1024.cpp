// What the newcomer and the engineer of issue 34 still saw at 1024 x 768, through the real widgets off
// screen (ctest runs it on a 1024 x 768 screen): the strip shows whole lines of chips, an empty lint
// list is one line, the dataset list's titles are whole in their tooltips, an Axolotl config without
// micro_batch_size sets Axolotl's default batch, and closing the teaching panel ends the BERT aside.
#include "../TokenizerCacheRequired.h"
#include "ui/dataset/DatasetView.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/Palette.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMouseEvent>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTest>
#include <QTextDocument>
#include <QToolBar>
#include <QToolTip>
#include <QTreeView>

using namespace maskscope;

namespace {

QString fixture(const QString& name) { return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/ui/frameworks/") + name; }
QString qwen3() { return QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/qwen3"); }

void saveScreenshot(QWidget& w, const QString& name) {
  const QString dir = qEnvironmentVariable("MASKSCOPE_SCREENSHOT_DIR");
  if (!dir.isEmpty()) w.grab().save(QStringLiteral("%1/fit-%2.png").arg(dir, name));
}

// The demo in a shown window, its dock sizes applied.
struct DemoWindow {
  DemoWindow() {
    session.openDataset(QStringLiteral("builtin:demo"));
    window = std::make_unique<MainWindow>(&session);
  }
  bool show() {
    window->show();
    return QTest::qWaitForWindowExposed(window.get()) && QTest::qWaitFor([this] { return window->dockSizesApplied(); });
  }
  Session session;
  std::unique_ptr<MainWindow> window;
};

// The chips the strip's viewport shows in part: "" when each is whole, else the first one cut.
QString cutChip(TokenStripView* strip) {
  const QRect view = strip->viewport()->rect();
  for (int t = 0; t < strip->positionCount(); ++t) {
    const QRect c = strip->chipRect(t);
    if (c.intersects(view) && !view.contains(c))
      return QStringLiteral("chip %1 at %2,%3 %4x%5 cut by the %6 px viewport (scrolled %7)")
          .arg(t)
          .arg(c.x())
          .arg(c.y())
          .arg(c.width())
          .arg(c.height())
          .arg(view.height())
          .arg(strip->verticalScrollBar()->value());
  }
  return {};
}

// Whole lines shown, and at least one.
void verifyWholeLines(TokenStripView* strip) {
  QCoreApplication::processEvents();
  QVERIFY2(cutChip(strip).isEmpty(), qPrintable(cutChip(strip)));
  QVERIFY(strip->viewport()->height() >= strip->lineHeight());
}

} // namespace

class TestFitAt1024 : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { palette::setTheme(palette::Theme::Light); }

  // The strip shows whole lines of chips at the first window's size, after the splitter above the grid
  // moves by an odd number of pixels, after scrolling (wheel, scroll bar dragged between two lines),
  // and in presenter mode's large type.
  void stripShowsWholeLines() {
    DemoWindow demo;
    QVERIFY(demo.show());
    MainWindow& w = *demo.window;
    TokenStripView* strip = w.tokenStrip();
    QTRY_VERIFY(strip->positionCount() > 0);
    saveScreenshot(w, QStringLiteral("strip"));
    verifyWholeLines(strip);
    auto* split = w.centralWidget()->findChild<QSplitter*>();
    QVERIFY(split);
    for (int by : {37, 23, -51}) {
      QList<int> sizes = split->sizes();
      sizes[0] += by;
      sizes[1] -= by;
      split->setSizes(sizes);
      verifyWholeLines(strip);
    }
    QScrollBar* bar = strip->verticalScrollBar();
    QVERIFY(bar->maximum() > 0);
    bar->triggerAction(QAbstractSlider::SliderSingleStepAdd);
    verifyWholeLines(strip);
    bar->setValue(strip->lineHeight() * 2 + 17); // dragged between two lines
    QTRY_COMPARE(bar->value() % strip->lineHeight(), 0);
    verifyWholeLines(strip);
    w.setPresenterMode(true);
    QTRY_VERIFY(strip->lineHeight() > 70); // the large type's chips
    QTest::qWait(0);
    verifyWholeLines(strip);
    w.setPresenterMode(false);
  }

  // The height below the strip's whole chip lines (kept blank so no line is cut) is the strip's own
  // background, not the window's grey: at every height the splitter gives the strip.
  void stripSpareBandIsTheStripsBackground() {
    DemoWindow demo;
    QVERIFY(demo.show());
    MainWindow& w = *demo.window;
    TokenStripView* strip = w.tokenStrip();
    QTRY_VERIFY(strip->positionCount() > 0);
    auto* split = w.centralWidget()->findChild<QSplitter*>();
    QVERIFY(split);
    int checked = 0;
    for (int by = 0; by < strip->lineHeight(); by += 7) {
      QList<int> sizes = split->sizes();
      sizes[0] += 7;
      sizes[1] -= 7;
      split->setSizes(sizes);
      QCoreApplication::processEvents();
      const QRect view = strip->viewport()->geometry(); // in the strip
      const int band = strip->height() - strip->frameWidth() - view.bottom() - 1;
      if (band < 3) continue;
      const QImage shot = strip->grab().toImage();
      const QColor base = strip->palette().color(QPalette::Base);
      const QPoint at(view.center().x(), view.bottom() + 1 + band / 2);
      QVERIFY2(shot.pixelColor(at) == base, qPrintable(QStringLiteral("band of %1 px at y %2: %3, the strip's %4")
                                                           .arg(band)
                                                           .arg(at.y())
                                                           .arg(shot.pixelColor(at).name(), base.name())));
      ++checked;
    }
    QVERIFY(checked > 0);
  }

  // The dataset list's column is the user's to size: its header's edge dragged 200 px to the right
  // widens it (the list then scrolls sideways to a title's end), and it keeps that width when the dock
  // is resized; the titles keep their tooltips (datasetTitleWholeInTooltip).
  void datasetColumnResizable() {
    DemoWindow demo;
    QVERIFY(demo.show());
    MainWindow& w = *demo.window;
    QTreeView* list = w.conversationList();
    QTRY_VERIFY(list->model() && list->model()->rowCount() > 0);
    QHeaderView* header = list->header();
    QVERIFY(header->isVisible());
    QCOMPARE(header->sectionSize(0), list->viewport()->width()); // as wide as the list to start with
    QVERIFY(header->model()->headerData(0, Qt::Horizontal).toString().contains(QStringLiteral("Conversation")));
    const int before = header->sectionSize(0);
    const QPoint edge(header->sectionViewportPosition(0) + before - 1, header->height() / 2);
    // The edge is where the user can reach it: inside the part of the dock the window shows (the
    // panel's least width fits the dock: it does not scroll sideways and hide the list's right edge).
    QDockWidget* dock = w.dock(QStringLiteral("dataset"));
    QVERIFY2(header->viewport()->visibleRegion().contains(edge) &&
                 dock->rect().contains(header->viewport()->mapTo(dock, edge)),
             qPrintable(QStringLiteral("header edge at x %1 of the dock's %2 px (panel least %3 px)")
                            .arg(header->viewport()->mapTo(dock, edge).x())
                            .arg(dock->width())
                            .arg(w.view(QStringLiteral("dataset"))->minimumSizeHint().width())));
    QTest::mousePress(header->viewport(), Qt::LeftButton, {}, edge);
    for (int dx = 20; dx <= 200; dx += 20) {
      const QPointF at(edge + QPoint(dx, 0));
      QMouseEvent move(QEvent::MouseMove, at, header->viewport()->mapToGlobal(at), Qt::NoButton, Qt::LeftButton, {});
      QCoreApplication::sendEvent(header->viewport(), &move);
    }
    QTest::mouseRelease(header->viewport(), Qt::LeftButton, {}, edge + QPoint(200, 0));
    QTRY_VERIFY2(header->sectionSize(0) >= before + 150,
                 qPrintable(QStringLiteral("column %1 px (was %2)").arg(header->sectionSize(0)).arg(before)));
    QTRY_VERIFY(list->horizontalScrollBar()->maximum() > 0); // scrolls to the rest of the titles
    const int given = header->sectionSize(0);
    w.resizeDocks({dock}, {dock->width() - 30}, Qt::Horizontal);
    QTest::qWait(20);
    QCOMPARE(header->sectionSize(0), given);
  }

  // No findings: the lint panel is its one line (buttons and "No findings"), not an empty list; the
  // centre gets the room; another tab brought forward gets its usual height, and lint in front again
  // shrinks back.
  void emptyLintTakesOneLine() {
    DemoWindow demo;
    QVERIFY(demo.show());
    MainWindow& w = *demo.window;
    LintView* lint = w.lintView();
    QDockWidget* dock = w.dock(QStringLiteral("lint"));
    w.showView(QStringLiteral("lint"));
    QTRY_VERIFY(!lint->lintPending() && lint->report().findings.empty());
    QTRY_VERIFY(lint->quiet());
    QVERIFY(!lint->list()->isVisible());
    QVERIFY2(lint->summaryText().startsWith(QStringLiteral("No findings")), qPrintable(lint->summaryText()));
    // One line: the summary's line and the dock's chrome (title bar, margins), well under the old ~200 px.
    const int line = lint->summaryLabel()->sizeHint().height();
    QTRY_VERIFY2(dock->height() <= 3 * line + 40,
                 qPrintable(QStringLiteral("lint dock %1 px for a %2 px line").arg(dock->height()).arg(line)));
    saveScreenshot(w, QStringLiteral("lint-quiet"));
    w.showView(QStringLiteral("softmax"));
    QDockWidget* softmax = w.dock(QStringLiteral("softmax"));
    QTRY_VERIFY2(softmax->height() >= 180, qPrintable(QString::number(softmax->height())));
    w.showView(QStringLiteral("lint"));
    QTRY_VERIFY2(dock->height() <= 3 * line + 40, qPrintable(QString::number(dock->height())));
    // Findings (a bug's collator): the list comes back with its room.
    QVERIFY(demo.session.setCollator(QStringLiteral("buggy-max-length-all-ones")));
    lint->lintCurrentBatch();
    QTRY_VERIFY(!lint->report().findings.empty());
    QTRY_VERIFY(!lint->quiet() && lint->list()->isVisible());
    QTRY_VERIFY2(dock->height() >= 180, qPrintable(QString::number(dock->height())));
  }

  // A title the list's column cuts ("... (2 msgs)") is whole in the row's tooltip: the first message
  // as the file has it, shown when the mouse rests on the row.
  void datasetTitleWholeInTooltip() {
    DemoWindow demo;
    QVERIFY(demo.show());
    MainWindow& w = *demo.window;
    auto* datasetView = static_cast<DatasetView*>(w.view(QStringLiteral("dataset")));
    QTreeView* list = datasetView->list();
    QTRY_VERIFY(list->model() && list->model()->rowCount() > 0);
    // The longest first user message of the rows the list shows.
    int longest = -1;
    QString message;
    for (int i = 0; i < list->model()->rowCount(); ++i) {
      const int row = list->model()->index(i, 0).data(Qt::UserRole).toInt();
      const Conversation c = demo.session.conversation(row);
      for (const auto& m : c.messages)
        if (m.role == "user") {
          const QString text = QString::fromStdString(m.content).simplified();
          if (text.size() > message.size()) longest = i, message = text;
          break;
        }
    }
    QVERIFY(message.size() > 60); // longer than a title shows
    const QModelIndex index = list->model()->index(longest, 0);
    list->scrollTo(index);
    const QRect r = list->visualRect(index);
    QVERIFY(!r.isEmpty());
    QVERIFY(list->fontMetrics().horizontalAdvance(index.data().toString()) > list->viewport()->width()); // cut
    QHelpEvent help(QEvent::ToolTip, r.center(), list->viewport()->mapToGlobal(r.center()));
    QCoreApplication::sendEvent(list->viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QTextDocument shown;
    shown.setHtml(QToolTip::text());
    QVERIFY2(shown.toPlainText().simplified().contains(message), qPrintable(QToolTip::text()));
    QToolTip::hideText();
  }

  // An Axolotl config that sets no micro_batch_size: Batch rows is Axolotl's default, 1, and the box
  // says where that number came from; the batch holds one row.
  void axolotlDefaultBatchRows() {
    REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(qwen3() + QStringLiteral("/tokenizer.json")));
    Session session;
    MainWindow w(&session);
    QVERIFY(session.setTokenizer(qwen3()));
    QVERIFY(session.openDataset(fixture(QStringLiteral("chat-rows.jsonl"))));
    QCOMPARE(session.batchSize(), 4);
    QString error;
    QVERIFY2(w.openFrameworkConfig(fixture(QStringLiteral("axolotl-no-batch.yml")), &error), qPrintable(error));
    QTRY_VERIFY(session.isFramework());
    auto* box = w.findChild<QToolBar*>(QStringLiteral("batchToolbar"))->findChild<QSpinBox*>();
    QVERIFY(box);
    QTRY_COMPARE(box->value(), 1);
    QCOMPARE(session.batchSize(), 1);
    QVERIFY2(box->toolTip().contains(QStringLiteral("Axolotl's default")), qPrintable(box->toolTip()));
    QVERIFY2(box->toolTip().contains(QStringLiteral("v0.18.0")), qPrintable(box->toolTip()));
    QTRY_VERIFY(session.frameworkRun() != nullptr);
    QCOMPARE(session.batch().batchSize(), int64_t(1));
    box->setValue(3); // the user's choice: the tooltip no longer claims the config's
    QVERIFY(!box->toolTip().contains(QStringLiteral("Axolotl")));
  }

  // The BERT aside's step, then the teaching panel closed: the aside ends (the strip shows the batch's
  // own tokens, no [MASK]).
  void closingTeachingEndsBertAside() {
    DemoWindow demo;
    QVERIFY(demo.show());
    MainWindow& w = *demo.window;
    TeachingView* teaching = w.teachingView();
    w.showView(QStringLiteral("teaching"));
    int step = -1;
    for (int i = 0; i < teaching->stepCount() && step < 0; ++i) {
      teaching->goToStep(i);
      if (demo.session.maskedLmAside()) step = i;
    }
    QVERIFY(step >= 0);
    QTRY_VERIFY(demo.session.maskedLm() != nullptr);
    TokenStripView* strip = w.tokenStrip();
    QVERIFY(strip->describePosition(0).contains(QStringLiteral("BERT aside")));
    QDockWidget* dock = w.dock(QStringLiteral("teaching"));
    QTRY_VERIFY(dock->isVisible());
    dock->close();
    QTRY_VERIFY(!demo.session.maskedLmAside());
    QVERIFY(demo.session.maskedLm() == nullptr);
    QTRY_VERIFY(!strip->describePosition(0).contains(QStringLiteral("BERT aside")));
  }
};

QTEST_MAIN(TestFitAt1024)
#include "tst_fit_at_1024.moc"
