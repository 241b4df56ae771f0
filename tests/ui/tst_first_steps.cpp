// The first steps of a newcomer on the demo and a teacher with a projector (issue 34), through the
// real widgets. ctest runs this on an off-screen 1024 x 768 projector (test_first_steps) and on a
// 1920 x 1080 monitor (test_first_steps_1080p; tests/data/ui/screen-*.json, MASKSCOPE_TEST_SCREEN).
#include "ui/lab/TrainingLabCharts.h"
#include "ui/lab/TrainingLabForm.h"
#include "ui/lab/TrainingLabView.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/widgets/Palette.h"

#include <QAbstractItemModel>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTabBar>
#include <QTest>
#include <QToolButton>
#include <QTreeView>
#include <QWheelEvent>
#include <memory>

using namespace maskscope;

namespace {

// The demo dataset in a main window, opened before the window is built (as the app does).
struct DemoWindow {
  DemoWindow() {
    session.openDataset(QStringLiteral("builtin:demo"));
    window = std::make_unique<MainWindow>(&session);
  }
  Session session;
  std::unique_ptr<MainWindow> window; // destroyed before the session it shows
};

void showDemo(DemoWindow& demo, bool presenter) {
  demo.window->show();
  QVERIFY(QTest::qWaitForWindowExposed(demo.window.get()));
  QTRY_VERIFY(demo.window->dockSizesApplied());
  if (presenter) {
    demo.window->setPresenterMode(true);
    QTRY_VERIFY(demo.window->dockSizesApplied());
  }
}

// MASKSCOPE_SCREENSHOT_DIR=DIR: the window as the test sees it, to look at.
void saveScreenshot(QWidget& w, const QString& name) {
  const QString dir = qEnvironmentVariable("MASKSCOPE_SCREENSHOT_DIR");
  if (!dir.isEmpty())
    w.grab().save(
        QStringLiteral("%1/first-steps-%2-%3.png").arg(dir, qEnvironmentVariable("MASKSCOPE_TEST_SCREEN"), name));
}

// Every text a chart draws (title, axis labels and titles, legend) as its scene holds it.
QStringList chartTexts(QChartView* view) {
  QStringList out;
  for (QGraphicsItem* item : view->scene()->items())
    if (auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item); text && text->isVisible())
      out << text->toPlainText();
  return out;
}

// The first and last position of the row that is not padding.
std::pair<int64_t, int64_t> realExtent(const AttentionGridCanvas& g) {
  const auto& pads = g.gridSource().padding;
  int64_t first = -1, last = -1;
  for (int64_t t = 0; t < g.gridSize(); ++t)
    if (pads.empty() || !pads[size_t(t)]) {
      if (first < 0) first = t;
      last = t;
    }
  return {first, last};
}

// Why the bottom tab bars of w do not show each tab whole without scrolling ("" when they do).
QString tabsCut(MainWindow& w) {
  int tabs = 0;
  for (QTabBar* bar : w.findChildren<QTabBar*>()) {
    if (!bar->isVisible()) continue;
    for (int i = 0; i < bar->count(); ++i, ++tabs) {
      const QRect tab = bar->tabRect(i);
      if (!bar->rect().contains(tab) || tab.width() < bar->fontMetrics().horizontalAdvance(bar->tabText(i)))
        return QStringLiteral("tab '%1' at %2..%3 of a %4 px bar")
            .arg(bar->tabText(i))
            .arg(tab.left())
            .arg(tab.right())
            .arg(bar->width());
    }
    for (QToolButton* scroll : bar->findChildren<QToolButton*>())
      if (scroll->isVisible()) return QStringLiteral("the %1 px bar shows its scroll buttons").arg(bar->width());
  }
  return tabs >= 6 ? QString() : QStringLiteral("%1 tabs shown").arg(tabs);
}

// Why the Training lab does not say its form's labels, the collators and the charts' texts whole.
QString labCut(TrainingLabView* lab) {
  for (QLabel* label : lab->findChildren<QLabel*>())
    if (label->isVisible() && !label->wordWrap() && label->width() < label->sizeHint().width())
      return QStringLiteral("label '%1' is %2 px of %3")
          .arg(label->text())
          .arg(label->width())
          .arg(label->sizeHint().width());
  for (QComboBox* box : lab->form()->findChildren<QComboBox*>())
    if (box->isVisible() && box->lineEdit() &&
        box->lineEdit()->width() < box->lineEdit()->fontMetrics().horizontalAdvance(box->currentText()))
      return QStringLiteral("'%1' in a %2 px box").arg(box->currentText()).arg(box->lineEdit()->width());
  for (int c = 0; c < TrainingLabCharts::kCharts; ++c) {
    QChartView* view = lab->charts()->view(TrainingLabCharts::Chart(c));
    for (const QString& t : chartTexts(view))
      if (t.contains(QStringLiteral("...")) || t.contains(QChar(0x2026)))
        return QStringLiteral("chart %1 (%2 x %3 px) draws '%4'").arg(c).arg(view->width()).arg(view->height()).arg(t);
  }
  return {};
}

} // namespace

class TestFirstSteps : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { palette::setTheme(palette::Theme::Light); }

  // The test must run on the screen ctest asked for, or it would pass on any screen.
  void screenIsTheOneAskedFor() {
    const QString expected = qEnvironmentVariable("MASKSCOPE_TEST_SCREEN");
    if (expected.isEmpty()) QSKIP("MASKSCOPE_TEST_SCREEN not set: run through ctest");
    const QSize size = QGuiApplication::primaryScreen()->geometry().size();
    QCOMPARE(QStringLiteral("%1x%2").arg(size.width()).arg(size.height()), expected);
  }

  // The first window takes 85 % of a large screen (1632 x 918 of 1920 x 1080), at least 1280 x 820
  // where the screen has it, never more than the screen, and opens centred on it.
  void firstWindowIsCentred() {
    DemoWindow demo;
    showDemo(demo, false);
    MainWindow& w = *demo.window;
    const QRect room = w.screen()->availableGeometry();
    QTRY_VERIFY(room.contains(w.frameGeometry()));
    const QSize frame = w.frameGeometry().size() - w.size(); // the title bar and borders, outside size()
    const QSize expected = (room.size() * 0.85).expandedTo(QSize(1280, 820)).boundedTo(room.size() - frame);
    QTRY_COMPARE(w.size(), expected);
    QTRY_VERIFY2((w.frameGeometry().center() - room.center()).manhattanLength() <= 2,
                 qPrintable(QStringLiteral("window centre %1,%2, screen centre %3,%4")
                                .arg(w.frameGeometry().center().x())
                                .arg(w.frameGeometry().center().y())
                                .arg(room.center().x())
                                .arg(room.center().y())));
    saveScreenshot(w, QStringLiteral("demo"));
  }

  // The header names the row as the dataset list does: its file line first, then its row of the batch.
  void headerSaysTheListsLine() {
    DemoWindow demo;
    showDemo(demo, false);
    MainWindow& w = *demo.window;
    for (int row : {0, 2}) {
      demo.session.selectRow(row);
      const long line = demo.session.selectedLine();
      QVERIFY(line >= 1);
      const QModelIndex item = w.conversationList()->model()->index(row, 0);
      const QString listed = item.data().toString();
      QVERIFY2(listed.startsWith(QStringLiteral("line %1 ").arg(line)), qPrintable(listed));
      QString header = w.summaryLabel()->text();
      header.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
      QVERIFY2(header.contains(QStringLiteral("Line %1, row %2 of a").arg(line).arg(demo.session.batchRow())),
               qPrintable(header));
    }
  }

  // The demo's grid is mostly pads (200 of 268 positions): it starts zoomed to the real tokens and a
  // few pads, says so, and double-click shows the whole grid. With folding off it starts fitted.
  void demoGridStartsAtTheRealTokens() {
    DemoWindow demo;
    showDemo(demo, false);
    AttentionGridCanvas* g = demo.window->attentionGrid();
    const double n = double(g->gridSize());
    const auto [first, last] = realExtent(*g);
    QVERIFY(first >= 0);
    QVERIFY2(n - double(last - first + 1) > double(last - first + 1),
             "the demo's first row needs more pads than tokens");
    QTRY_VERIFY2(g->viewRect().height() < n, // the keys too where the area is not much wider than tall
                 qPrintable(QStringLiteral("view %1 x %2 of %3, folded %4 x %5")
                                .arg(g->viewRect().width())
                                .arg(g->viewRect().height())
                                .arg(n)
                                .arg(g->foldedView().width())
                                .arg(g->foldedView().height())));
    const QRectF v = g->viewRect();
    QVERIFY2(v.top() <= double(first) && v.bottom() >= double(last + 1) && v.left() <= double(first) &&
                 v.right() >= double(last + 1),
             qPrintable(QStringLiteral("view %1,%2 %3x%4 misses the real tokens %5..%6")
                            .arg(v.x())
                            .arg(v.y())
                            .arg(v.width())
                            .arg(v.height())
                            .arg(first)
                            .arg(last)));
    QVERIFY2(v.height() <= double(last - first + 1) + 8, qPrintable(QString::number(v.height())));
    saveScreenshot(*demo.window, QStringLiteral("grid-folded"));
    QTest::mouseDClick(g, Qt::LeftButton, {}, g->rect().center());
    QTRY_COMPARE(g->viewRect(), QRectF(0, 0, n, n));
    g->setFoldsPads(false);
    QCOMPARE(g->viewRect(), QRectF(0, 0, n, n));
    g->setFoldsPads(true);
    QTRY_VERIFY(g->viewRect().height() < n);
  }

  // A pad query's tooltip names the label the loss would read at q + 1; at the last position there is
  // none, and the tooltip must not name one.
  void padTooltipsNameOnlyRealLabels() {
    DemoWindow demo;
    showDemo(demo, false);
    AttentionGridCanvas* g = demo.window->attentionGrid();
    const int n = int(g->gridSize());
    QVERIFY(g->gridSource().padQuery(n - 1));
    static const QRegularExpression label(QStringLiteral("label at (\\d+)"));
    for (int q = 0; q < n; ++q) {
      const QString text = g->describeCell(q, 0);
      for (auto m = label.globalMatch(text); m.hasNext();) {
        const int at = m.next().captured(1).toInt();
        QVERIFY2(at < n, qPrintable(QStringLiteral("query %1 of %2: %3").arg(q).arg(n).arg(text)));
      }
    }
    QVERIFY(g->describeCell(n - 1, 0).contains(QStringLiteral("last position")));
  }

  // Presenter mode on the screen: the bottom panels' tabs all show, whole, without the bar scrolling.
  void presenterTabsAllShow() {
    DemoWindow demo;
    showDemo(demo, true);
    MainWindow& w = *demo.window;
    w.showView(QStringLiteral("lint"));
    QCoreApplication::processEvents();
    int tabs = 0;
    for (QTabBar* bar : w.findChildren<QTabBar*>()) {
      if (!bar->isVisible()) continue;
      for (int i = 0; i < bar->count(); ++i, ++tabs) {
        const QRect tab = bar->tabRect(i);
        QVERIFY2(bar->rect().contains(tab),
                 qPrintable(QStringLiteral("tab '%1' at %2..%3 of a %4 px bar (the bar scrolls)")
                                .arg(bar->tabText(i))
                                .arg(tab.left())
                                .arg(tab.right())
                                .arg(bar->width())));
        QVERIFY2(tab.width() >= bar->fontMetrics().horizontalAdvance(bar->tabText(i)), qPrintable(bar->tabText(i)));
      }
    }
    QVERIFY(tabs >= 6);
    saveScreenshot(w, QStringLiteral("presenter-tabs"));
  }

  // Presenter mode with the teaching steps out of the tab group: through every step, and whichever
  // bottom panel is then brought forward, each tab of the bottom bar says its whole name without the
  // bar scrolling, and the Training lab, in front, says its labels, collators and chart texts whole.
  void presenterTeachingKeepsTabsAndLabWhole() {
    DemoWindow demo;
    showDemo(demo, true);
    MainWindow& w = *demo.window;
    TeachingView* teaching = w.teachingView();
    auto* lab = static_cast<TrainingLabView*>(w.view(QStringLiteral("lab")));
    w.showView(QStringLiteral("teaching"));
    teaching->goToStep(0);
    QTRY_VERIFY(w.tabifiedDockWidgets(w.dock(QStringLiteral("teaching"))).isEmpty());
    // The steps right of the centre, a third of the width; the centre fits the rest (its legend wraps).
    QTRY_COMPARE(w.dockWidgetArea(w.dock(QStringLiteral("teaching"))), Qt::RightDockWidgetArea);
    QTRY_VERIFY(w.dock(QStringLiteral("teaching"))->width() >= w.width() * 3 / 10);
    QVERIFY2(w.centralWidget()->minimumSizeHint().width() <= w.centralWidget()->width(),
             qPrintable(QStringLiteral("centre %1 px, least %2")
                            .arg(w.centralWidget()->width())
                            .arg(w.centralWidget()->minimumSizeHint().width())));
    auto where = [&](const QString& front) {
      return QStringLiteral("step %1, %2 in front, window %3x%4, teaching %5 px wide: ")
          .arg(teaching->stepIndex() + 1)
          .arg(front)
          .arg(w.width())
          .arg(w.height())
          .arg(w.dock(QStringLiteral("teaching"))->width());
    };
    for (int i = 0; i < teaching->stepCount(); ++i) {
      teaching->goToStep(i);
      for (int k = 0; k < 3; ++k) QCoreApplication::processEvents();
      QTRY_VERIFY2(tabsCut(w).isEmpty(), qPrintable(where(QStringLiteral("its panel")) + tabsCut(w)));
      if (lab->isVisible()) QTRY_VERIFY2(labCut(lab).isEmpty(), qPrintable(where(QStringLiteral("lab")) + labCut(lab)));
      if (i != 0 && !lab->isVisible()) continue;
      for (const ViewSpec& v : viewRegistry()) { // every bottom panel in front, on the first and the lab's step
        if (v.area != Qt::BottomDockWidgetArea || v.name == QLatin1String("teaching")) continue;
        w.showView(v.name);
        QTRY_VERIFY(w.view(v.name)->isVisible());
        for (int k = 0; k < 3; ++k) QCoreApplication::processEvents();
        QTRY_VERIFY2(tabsCut(w).isEmpty(), qPrintable(where(v.name) + tabsCut(w)));
      }
      w.showView(QStringLiteral("lab"));
      QTRY_VERIFY(lab->isVisible());
      QTRY_VERIFY2(labCut(lab).isEmpty(), qPrintable(where(QStringLiteral("lab")) + labCut(lab)));
      saveScreenshot(w, QStringLiteral("presenter-teaching-lab-step%1").arg(i + 1));
    }
  }

  // Presenter mode: the Training lab's charts say their titles and axis labels whole (no "...").
  void presenterLabChartsSayTheirTitles() {
    DemoWindow demo;
    showDemo(demo, true);
    MainWindow& w = *demo.window;
    w.showView(QStringLiteral("lab"));
    TrainingLabCharts* charts = static_cast<TrainingLabView*>(w.view(QStringLiteral("lab")))->charts();
    QTRY_VERIFY(charts->isVisible());
    QCoreApplication::processEvents();
    saveScreenshot(w, QStringLiteral("presenter-lab"));
    for (int c = 0; c < TrainingLabCharts::kCharts; ++c) {
      QChartView* view = charts->view(TrainingLabCharts::Chart(c));
      saveScreenshot(*view, QStringLiteral("presenter-lab-chart%1").arg(c));
      const QStringList texts = chartTexts(view);
      QString title = view->chart()->title(); // two lines where it is wider than the chart
      title.replace(QStringLiteral("<br>"), QStringLiteral(" "));
      bool drawn = false;
      for (const QString& t : texts) drawn = drawn || t.simplified() == title.simplified();
      QVERIFY2(drawn, qPrintable(texts.join(QStringLiteral(" | "))));
      for (const QString& t : texts)
        QVERIFY2(!t.contains(QStringLiteral("...")) && !t.contains(QChar(0x2026)),
                 qPrintable(QStringLiteral("chart %1 (%2 x %3 px, plot %4 px) draws '%5' of %6")
                                .arg(view->chart()->title())
                                .arg(view->width())
                                .arg(view->height())
                                .arg(view->chart()->plotArea().height())
                                .arg(t, texts.join(QStringLiteral(" | ")))));
    }
  }

  // The wheel over a spin box the user has not clicked scrolls the panel (presenter mode: the lab
  // scrolls) and leaves the value; once clicked into, the box takes the wheel.
  void wheelOverAnUnfocusedSpinBoxScrolls() {
    DemoWindow demo;
    showDemo(demo, true);
    MainWindow& w = *demo.window;
    w.showView(QStringLiteral("lab"));
    auto* lab = static_cast<TrainingLabView*>(w.view(QStringLiteral("lab")));
    QTRY_VERIFY(lab->isVisible());
    QScrollArea* area = nullptr;
    for (QWidget* p = lab->parentWidget(); p && !area; p = p->parentWidget()) area = qobject_cast<QScrollArea*>(p);
    QVERIFY(area);
    QScrollBar* bar = area->verticalScrollBar();
    QTRY_VERIFY2(bar->maximum() > 0, "the lab panel must scroll at this size for the check");
    QSpinBox* box = nullptr;
    for (QSpinBox* b : lab->form()->findChildren<QSpinBox*>())
      if (b->isVisible() && b->value() < b->maximum() && b->value() > b->minimum()) box = b;
    QVERIFY(box);
    w.centralWidget()->setFocus();
    QVERIFY(!box->hasFocus());
    bar->setValue(0);
    const int value = box->value();
    const QPoint at = box->rect().center();
    QWheelEvent down(at, box->mapToGlobal(at), {}, QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                     false);
    QCoreApplication::sendEvent(box, &down);
    QCOMPARE(box->value(), value);
    QVERIFY2(bar->value() > 0, "the panel did not scroll");
    box->setFocus();
    QTRY_VERIFY(box->hasFocus());
    QWheelEvent up(at, box->mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                   false);
    QCoreApplication::sendEvent(box, &up);
    QCOMPARE(box->value(), value + box->singleStep());
  }
};

QTEST_MAIN(TestFirstSteps)
#include "tst_first_steps.moc"
