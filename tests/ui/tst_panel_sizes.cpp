// Every panel usable docked on the screen the test runs on: ctest runs this on an off-screen
// 1024 x 768 projector, a 1920 x 1080 screen (3840 x 2160 at QT_SCALE_FACTOR=2) and in presenter
// mode at 1024 x 768 (MASKSCOPE_TEST_PRESENTER=1). Checks the real widget geometry through the public
// API: no two controls of a panel overlap, each chart or grid can be scrolled to a whole visible
// 150 px, text views show 3 lines, dock tab labels are not elided, the status bar's widgets stay
// apart, the separators and splitters move, the legend grows in presenter mode.
// MASKSCOPE_SCREENSHOT_DIR=dir saves the window with each panel in front, to look at.
#include "core/frameworks/Framework.h"
#include "ui/lab/TrainingLabCharts.h"
#include "ui/lab/TrainingLabView.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/AttentionView.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/loss/LossView.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/views/table/PositionTableView.h"
#include "ui/widgets/FrameworkPicker.h"
#include "ui/widgets/FrameworkSpecEdit.h"
#include "ui/widgets/Palette.h"

#include <QAbstractAxis>
#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QLegend>
#include <QLineEdit>
#include <QListWidget>
#include <QMainWindow>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTableView>
#include <QTest>
#include <QTextBrowser>
#include <QToolBar>
#include <QToolButton>
#include <QWheelEvent>
#include <functional>
#include <memory>

using namespace maskscope;

namespace {

bool presenterRun() { return qEnvironmentVariableIntValue("MASKSCOPE_TEST_PRESENTER") == 1; }

QString screenName() {
  const QString s = qEnvironmentVariable("MASKSCOPE_TEST_SCREEN");
  return (s.isEmpty() ? QStringLiteral("screen") : s) + (presenterRun() ? QStringLiteral("-presenter") : QString());
}

QRect globalRect(const QWidget* w) { return QRect(w->mapToGlobal(QPoint(0, 0)), w->size()); }

// The part of w a person sees: its rectangle clipped by every ancestor up to the window.
QRect visibleRect(const QWidget* w) {
  QRect r = globalRect(w);
  for (const QWidget* p = w->parentWidget(); p; p = p->parentWidget()) r &= globalRect(p);
  return r;
}

QString describe(const QWidget* w) {
  const QRect r = visibleRect(w);
  QString text;
  if (auto* b = qobject_cast<const QAbstractButton*>(w)) text = b->text();
  if (auto* l = qobject_cast<const QLabel*>(w)) text = l->text().left(30);
  return QStringLiteral("%1 '%2' %3 (%4,%5 %6x%7)")
      .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName(), text)
      .arg(r.x())
      .arg(r.y())
      .arg(r.width())
      .arg(r.height());
}

// The controls a person reads or clicks inside root: buttons, fields, labels, progress bars, and the
// canvases (scroll areas and chart views count as one control each).
QList<QWidget*> controls(QWidget* root) {
  QList<QWidget*> out;
  for (QWidget* w : root->findChildren<QWidget*>()) {
    if (!w->isVisibleTo(root) || visibleRect(w).isEmpty()) continue;
    bool insideControl = false;
    for (QWidget* p = w->parentWidget(); p && p != root; p = p->parentWidget())
      insideControl = insideControl || qobject_cast<QAbstractScrollArea*>(p) || qobject_cast<QComboBox*>(p) ||
                      qobject_cast<QAbstractSpinBox*>(p);
    if (insideControl) continue;
    bool leaf = true; // a painted canvas (chart, grid) has no child widgets
    for (QWidget* c : w->findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) leaf = leaf && !c->isVisibleTo(root);
    const bool control = qobject_cast<QAbstractButton*>(w) || qobject_cast<QLabel*>(w) || qobject_cast<QLineEdit*>(w) ||
                         qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w) ||
                         qobject_cast<QProgressBar*>(w) || qobject_cast<QAbstractSlider*>(w) ||
                         (qobject_cast<QAbstractScrollArea*>(w) && !qobject_cast<QScrollArea*>(w)) || leaf;
    if (control) out << w;
  }
  return out;
}

void verifyNoOverlap(QWidget* root) {
  const QList<QWidget*> list = controls(root);
  for (int i = 0; i < list.size(); ++i)
    for (int j = i + 1; j < list.size(); ++j) {
      if (list[i]->isAncestorOf(list[j]) || list[j]->isAncestorOf(list[i])) continue;
      const QRect both = visibleRect(list[i]) & visibleRect(list[j]);
      QVERIFY2(both.isEmpty(),
               qPrintable(QStringLiteral("overlap: %1 and %2").arg(describe(list[i]), describe(list[j]))));
    }
}

// Scrolls w into view as a person would (the dock's scroll area, when the panel scrolls: w's top
// edge to the viewport's, unless it is whole already) and returns its visible height. Not
// ensureWidgetVisible: it aims at a chart view's input cursor, not at the chart.
int visibleHeightAfterScrolling(QWidget* w) {
  for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
    if (auto* area = qobject_cast<QScrollArea*>(p); area && area->widget()) {
      const QRect in(w->mapTo(area->widget(), QPoint(0, 0)), w->size());
      const QRect shown(-area->widget()->pos(), area->viewport()->size());
      if (!shown.contains(in)) {
        area->verticalScrollBar()->setValue(in.top());
        area->horizontalScrollBar()->setValue(in.left());
      }
      QCoreApplication::processEvents();
    }
  return visibleRect(w).height();
}

// What each panel must show whole: its charts and grids (150 px tall each), or its text (3 lines).
struct PanelNeeds {
  QList<QWidget*> canvases;
  QList<QWidget*> texts;
};

PanelNeeds needsOf(MainWindow& w, const QString& view) {
  if (view == QLatin1String("lab")) {
    auto* lab = static_cast<TrainingLabView*>(w.view(view));
    return {{lab->charts()->view(TrainingLabCharts::TrainLoss), lab->charts()->view(TrainingLabCharts::HeldOut),
             lab->charts()->view(TrainingLabCharts::PadShare)},
            {}};
  }
  if (view == QLatin1String("softmax")) return {{w.softmaxView()->chart()}, {}};
  if (view == QLatin1String("loss")) return {{w.lossView()->chart()}, {}};
  if (view == QLatin1String("compare")) return {{w.compareView()->gridA(), w.compareView()->gridB()}, {}};
  if (view == QLatin1String("teaching")) return {{}, {w.teachingView()->textView()}};
  if (view == QLatin1String("lint") && !w.lintView()->quiet()) return {{}, {w.lintView()->list()}};
  if (view == QLatin1String("table")) return {{}, {static_cast<PositionTableView*>(w.view(view))->table()}};
  return {}; // the rest: no overlap, splitters that move (their own tests check their content)
}

// The rows of the per-panel tests, named panel@size (the screen the ctest entry gives, "-presenter"
// in presenter mode).
// Every bottom dock of viewRegistry(): a new view's panel is size-tested without editing this file.
void panelRows() {
  QTest::addColumn<QString>("view");
  int docks = 0;
  for (const ViewSpec& v : viewRegistry()) {
    if (v.area != Qt::BottomDockWidgetArea) continue;
    QTest::newRow(qPrintable(QStringLiteral("%1@%2").arg(v.name, screenName()))) << v.name;
    ++docks;
  }
  QVERIFY2(docks >= 10, "fewer bottom docks in viewRegistry() than this round's ten");
}

void sendMouse(QWidget* w, QEvent::Type type, QPoint at, Qt::MouseButtons buttons) {
  QMouseEvent e(type, at, w->mapToGlobal(at), Qt::LeftButton, buttons, Qt::NoModifier);
  QCoreApplication::sendEvent(w, &e);
  QCoreApplication::processEvents();
}

// The middle of the main window's separator above a bottom dock (between it and the centre).
QPoint separatorAbove(QMainWindow& w, QDockWidget* dock) {
  const QRect d = dock->geometry(), centre = w.centralWidget()->geometry();
  return QPoint(d.center().x(), (centre.bottom() + d.top()) / 2 + (centre.bottom() + 1 == d.top() ? 0 : 1));
}

// Drags the window's separator above `dock` by `by`, as a mouse does; returns the dock's new height.
int dragBy(QMainWindow* w, QDockWidget* dock, QPoint by) {
  const QPoint at = separatorAbove(*w, dock);
  sendMouse(w, QEvent::MouseButtonPress, at, Qt::LeftButton);
  sendMouse(w, QEvent::MouseMove, at + by / 2, Qt::LeftButton);
  sendMouse(w, QEvent::MouseMove, at + by, Qt::LeftButton);
  sendMouse(w, QEvent::MouseButtonRelease, at + by, Qt::NoButton);
  return dock->height();
}

// The demo dataset in a main window, opened before the window is built (as the app does).
struct DemoWindow {
  DemoWindow() {
    session.openDataset(QStringLiteral("builtin:demo"));
    window = std::make_unique<MainWindow>(&session);
  }
  Session session;
  std::unique_ptr<MainWindow> window; // destroyed before the session it shows
};

// Shows the window, waits until its dock sizes are applied, then presenter mode when asked.
void showDemo(DemoWindow& demo, bool presenter) {
  demo.window->show();
  QVERIFY(QTest::qWaitForWindowExposed(demo.window.get()));
  QTRY_VERIFY(demo.window->dockSizesApplied());
  if (presenter) demo.window->setPresenterMode(true);
}

} // namespace

class TestPanelSizes : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { palette::setTheme(palette::Theme::Light); }

  void panelIsUsableDocked_data() { panelRows(); }

  void panelIsUsableDocked() {
    QFETCH(QString, view);
    DemoWindow demo;
    showDemo(demo, presenterRun());
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    if (view == QLatin1String("teaching")) w.teachingView()->goToStep(0);
    w.showView(view);
    QDockWidget* dock = w.dock(view);
    QVERIFY(dock);
    QTRY_VERIFY(dock->isVisible() && visibleRect(dock->widget()).height() > 0);
    QTest::qWait(0); // no time passes: queued layout calls (dock sizes) run
    QCoreApplication::processEvents();
    if (const QString dir = qEnvironmentVariable("MASKSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
      w.grab().save(QDir(dir).filePath(QStringLiteral("%1-%2.png").arg(screenName(), view)));
    verifyNoOverlap(dock->widget());
    if (QTest::currentTestFailed()) return;
    const PanelNeeds needs = needsOf(w, view);
    // Charts and grids >= 150 px (the panel brought forward may scroll to them), presenter mode included.
    for (QWidget* c : needs.canvases) {
      const int h = visibleHeightAfterScrolling(c);
      QVERIFY2(h >= 150, qPrintable(QStringLiteral("%1 shows %2 px").arg(describe(c)).arg(h)));
      QVERIFY2(visibleRect(c).width() >= 150, qPrintable(describe(c)));
    }
    // Text views show 3 lines of their type where the panel opens, without scrolling to them (a
    // presenter reads the step text and the findings while clicking Next).
    for (QWidget* t : needs.texts) {
      auto* area = qobject_cast<QAbstractScrollArea*>(t);
      QVERIFY(area);
      const int shown = visibleRect(area->viewport()).height(), lines = 3 * t->fontMetrics().lineSpacing();
      QVERIFY2(shown >= lines, qPrintable(QStringLiteral("%1 shows %2 px of text without scrolling < 3 lines (%3 px)")
                                              .arg(describe(t))
                                              .arg(shown)
                                              .arg(lines)));
    }
    // Every bottom dock, whatever it holds: 3 whole lines of its type where it opens (the position
    // table showed 64 px in presenter mode at 1024 x 768). A quiet view (the lint panel without
    // findings) is its one line.
    const auto* quiet = qobject_cast<LintView*>(w.view(view));
    if (dock->isVisible() && w.dockWidgetArea(dock) == Qt::BottomDockWidgetArea && !(quiet && quiet->quiet())) {
      const int shown = visibleRect(dock->widget()).height(), lines = 3 * w.view(view)->fontMetrics().lineSpacing();
      QVERIFY2(shown >= lines,
               qPrintable(QStringLiteral("dock %1 shows %2 px < 3 lines (%3 px)").arg(view).arg(shown).arg(lines)));
    }
    for (QWidget* t : needs.texts) {
      const int h = visibleHeightAfterScrolling(t);
      const int lines = 3 * t->fontMetrics().lineSpacing();
      QVERIFY2(h >= lines,
               qPrintable(QStringLiteral("%1 shows %2 px < 3 lines (%3 px)").arg(describe(t)).arg(h).arg(lines)));
    }
  }

  void splittersMove_data() { panelRows(); }

  // The separator between the centre and the panel's dock moves with the mouse (the panel taller,
  // then shorter), and so do the splitters inside the panel that show two sides.
  void splittersMove() {
    QFETCH(QString, view);
    DemoWindow demo;
    showDemo(demo, presenterRun());
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    w.showView(view);
    QDockWidget* dock = w.dock(view);
    QTRY_VERIFY(dock->isVisible());
    QTest::qWait(0);
    QCoreApplication::processEvents();
    const int before = dock->height();
    const int up = dragBy(&w, dock, QPoint(0, -40));
    const int down = dragBy(&w, dock, QPoint(0, 80));
    QVERIFY2(up != before || down != up,
             qPrintable(QStringLiteral("dock %1 px, after the drags %2 and %3").arg(before).arg(up).arg(down)));
    for (QSplitter* split : dock->widget()->findChildren<QSplitter*>()) {
      int sides = 0;
      for (int i = 0; i < split->count(); ++i) sides += split->widget(i)->isVisible() ? 1 : 0;
      if (sides < 2 || !split->isVisible()) continue;
      QSplitterHandle* handle = split->handle(1);
      const int first = split->sizes().first();
      const QPoint by = split->orientation() == Qt::Horizontal ? QPoint(-40, 0) : QPoint(0, -40);
      const QPoint at = handle->rect().center();
      sendMouse(handle, QEvent::MouseButtonPress, at, Qt::LeftButton);
      sendMouse(handle, QEvent::MouseMove, at + by, Qt::LeftButton);
      sendMouse(handle, QEvent::MouseButtonRelease, at + by, Qt::NoButton);
      QVERIFY2(split->sizes().first() != first, qPrintable(QStringLiteral("splitter side stays %1 px").arg(first)));
    }
  }

  // Presenter mode enlarges the attention legend with the rest (type and swatches 1.5x at least),
  // every entry whole inside the view; the packing entries fold for a row of one example and come
  // back for a packed row.
  void legendGrowsWithTheRest() {
    DemoWindow demo;
    showDemo(demo, false);
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    Session& session = demo.session;
    AttentionView* view = w.attentionView();
    auto* label = view->findChild<QLabel*>(QStringLiteral("legend:allowed"));
    auto* swatch = view->findChild<QLabel*>(QStringLiteral("swatch:allowed"));
    auto* other = view->findChild<QLabel*>(QStringLiteral("legend:other example"));
    QVERIFY(label && swatch && other);
    const int textPx = QFontInfo(label->font()).pixelSize(), swatchPx = swatch->height();
    QVERIFY(other->isVisible()); // normal type: the legend keeps all its rows
    w.setPresenterMode(true);
    QTRY_VERIFY(QFontInfo(label->font()).pixelSize() >= textPx * 3 / 2);
    QVERIFY2(swatch->height() >= swatchPx * 3 / 2, qPrintable(QString::number(swatch->height())));
    QTRY_VERIFY(!other->isVisible()); // the demo's row is one example
    QCoreApplication::processEvents();
    for (QLabel* l : view->findChildren<QLabel*>())
      if (l->isVisible())
        QVERIFY2(visibleRect(l) == globalRect(l), qPrintable(QStringLiteral("cut: %1").arg(describe(l))));
    QVERIFY(session.setCollator(QStringLiteral("axolotl-packed")));
    QTRY_VERIFY(other->isVisible());
    w.setPresenterMode(false);
    QTRY_COMPARE(QFontInfo(label->font()).pixelSize(), textPx);
  }

  // Every toolbar control is reachable where it is (none pushed into the » extension menu), with
  // maskscope's presets and with each framework of the registry (its version, Options and stage
  // buttons widen the toolbar).
  void toolbarControlsAreReachable_data() {
    QTest::addColumn<QString>("framework");
    QTest::newRow(qPrintable(QStringLiteral("preset@%1").arg(screenName()))) << QString();
    for (const FrameworkDefinition& d : frameworkDefinitions())
      QTest::newRow(qPrintable(QStringLiteral("%1@%2").arg(QString::fromStdString(d.info.name), screenName())))
          << QString::fromStdString(d.info.name);
  }

  void toolbarControlsAreReachable() {
    QFETCH(QString, framework);
    DemoWindow demo;
    if (!framework.isEmpty()) QVERIFY2(demo.session.setCollator(frameworkSpecFor(framework)), qPrintable(framework));
    showDemo(demo, presenterRun());
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    QCOMPARE(w.frameworkPicker()->frameworkBox()->currentData().toString(), framework);
    QCoreApplication::processEvents();
    if (const QString dir = qEnvironmentVariable("MASKSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
      w.grab().save(
          QDir(dir).filePath(QStringLiteral("%1-toolbar-%2.png")
                                 .arg(screenName(), framework.isEmpty() ? QStringLiteral("preset") : framework)));
    int checked = 0;
    for (QToolBar* bar : w.findChildren<QToolBar*>()) {
      if (!bar->isVisible()) continue;
      // The extension button (») shows only when the bar hides some of its actions.
      for (QToolButton* b : bar->findChildren<QToolButton*>(Qt::FindDirectChildrenOnly))
        QTRY_VERIFY2(!b->isVisible() || bar->widgetForAction(b->defaultAction()) == b,
                     qPrintable(QStringLiteral("%1: the extension button shows").arg(bar->windowTitle())));
      for (QAction* a : bar->actions()) {
        QWidget* control = bar->widgetForAction(a);
        if (!a->isVisible() || !control) continue;
        ++checked;
        QTRY_VERIFY2(
            control->isVisible() && globalRect(bar).contains(visibleRect(control)),
            qPrintable(QStringLiteral("%1: %2 not shown in the bar").arg(bar->windowTitle(), describe(control))));
      }
    }
    QVERIFY(checked >= 8); // tokenizer, template, collator (framework), batch rows and their labels
  }

  // Presenter mode enlarges the Training lab's chart text with the rest (Qt Charts keep fonts of
  // their own): titles, axis labels and titles, legends 1.5x at least; leaving it gives them back.
  void labChartTextGrowsWithTheRest() {
    DemoWindow demo;
    showDemo(demo, false);
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    TrainingLabCharts* charts = static_cast<TrainingLabView*>(w.view(QStringLiteral("lab")))->charts();
    // Every text a chart draws, in pixels: the title, the legend, each axis's labels and title.
    auto textPx = [charts](TrainingLabCharts::Chart c) {
      QChart* chart = charts->view(c)->chart();
      QList<int> px{QFontInfo(chart->titleFont()).pixelSize(), QFontInfo(chart->legend()->font()).pixelSize()};
      for (QAbstractAxis* axis : chart->axes())
        px << QFontInfo(axis->labelsFont()).pixelSize() << QFontInfo(axis->titleFont()).pixelSize();
      return px;
    };
    const QList<int> before = textPx(TrainingLabCharts::TrainLoss);
    QCOMPARE(before.size(), 6);
    w.setPresenterMode(true);
    for (int c = 0; c < TrainingLabCharts::kCharts; ++c) {
      const QList<int> now = textPx(TrainingLabCharts::Chart(c));
      for (int i = 0; i < now.size(); ++i)
        QTRY_VERIFY2(textPx(TrainingLabCharts::Chart(c))[i] >= before[i] * 3 / 2,
                     qPrintable(QStringLiteral("chart %1 text %2: %3 px, %4 px before")
                                    .arg(c)
                                    .arg(i)
                                    .arg(textPx(TrainingLabCharts::Chart(c))[i])
                                    .arg(before[i])));
    }
    w.setPresenterMode(false);
    QTRY_COMPARE(textPx(TrainingLabCharts::HeldOut), before);
  }

  // The tabs of the docked panels say their names: never "S…" (the tab bar scrolls instead).
  void dockTabLabelsAreWhole() {
    DemoWindow demo;
    showDemo(demo, presenterRun());
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    QCoreApplication::processEvents();
    int tabs = 0;
    for (QTabBar* bar : w.findChildren<QTabBar*>()) {
      if (!bar->isVisible()) continue;
      for (int i = 0; i < bar->count(); ++i, ++tabs) {
        const QString text = bar->tabText(i);
        const int needed = bar->fontMetrics().horizontalAdvance(text);
        QVERIFY2(bar->tabRect(i).width() >= needed, qPrintable(QStringLiteral("tab '%1' is %2 px for %3 px of text")
                                                                   .arg(text)
                                                                   .arg(bar->tabRect(i).width())
                                                                   .arg(needed)));
      }
    }
    QVERIFY(tabs >= 6); // the bottom panels are tabbed: the check ran on them
  }

  // The status bar's permanent widgets (read-only notice, model, progress) stay inside it and apart.
  void statusBarWidgetsDoNotOverlap() {
    DemoWindow demo;
    showDemo(demo, presenterRun());
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    w.statusBar()->showMessage(QStringLiteral("forward pass done (cpu, loss 2.3456)"));
    QCoreApplication::processEvents();
    const QRect bar = globalRect(w.statusBar());
    QVERIFY(bar.bottom() <= globalRect(&w).bottom());
    verifyNoOverlap(w.statusBar());
    for (QWidget* c : controls(w.statusBar())) QVERIFY2(bar.contains(visibleRect(c)), qPrintable(describe(c)));
  }

  // Steps that bring other panels forward leave the step text and Back / Next where they were.
  void teachingButtonsStayPut() {
    DemoWindow demo;
    showDemo(demo, presenterRun());
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    TeachingView* teaching = w.teachingView();
    w.showView(QStringLiteral("teaching"));
    teaching->goToStep(0);
    QTRY_VERIFY(teaching->nextButton()->isVisible());
    // The first step took the panel out of the bottom tab group and queued its width: let it settle.
    QTRY_VERIFY(w.tabifiedDockWidgets(w.dock(QStringLiteral("teaching"))).isEmpty());
    for (int k = 0; k < 3; ++k) QCoreApplication::processEvents();
    const QRect next = globalRect(teaching->nextButton()), back = globalRect(teaching->previousButton());
    for (int i = 1; i < teaching->stepCount(); ++i) {
      teaching->goToStep(i);
      QCoreApplication::processEvents();
      QCoreApplication::processEvents();
      QVERIFY2(teaching->nextButton()->isVisible(), qPrintable(teaching->currentTitle()));
      QTRY_VERIFY2(
          globalRect(teaching->previousButton()) == back,
          qPrintable(QStringLiteral("step %1 '%2': Back at %3,%4 (was %5,%6), window %7 px high, summary %8 px")
                         .arg(i)
                         .arg(teaching->currentTitle())
                         .arg(globalRect(teaching->previousButton()).x())
                         .arg(globalRect(teaching->previousButton()).y())
                         .arg(back.x())
                         .arg(back.y())
                         .arg(w.height())
                         .arg(w.summaryLabel()->height())));
      if (teaching->nextButton()->isEnabled()) QTRY_COMPARE(globalRect(teaching->nextButton()), next);
    }
  }

  // Page Down / Page Up step (a presenter's clicker); the arrow keys too, in presenter mode only.
  void teachingKeysStep() {
    DemoWindow demo;
    showDemo(demo, false);
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    TeachingView* teaching = w.teachingView();
    w.showView(QStringLiteral("teaching"));
    teaching->goToStep(0);
    QTRY_VERIFY(teaching->isVisible());
    w.activateWindow();
    QTest::keyClick(&w, Qt::Key_PageDown);
    QTRY_COMPARE(teaching->stepIndex(), 1);
    QTest::keyClick(&w, Qt::Key_PageDown);
    QTRY_COMPARE(teaching->stepIndex(), 2);
    QTest::keyClick(&w, Qt::Key_PageUp);
    QTRY_COMPARE(teaching->stepIndex(), 1);
    QTest::keyClick(&w, Qt::Key_Right); // not in presenter mode: the arrows are the focused widget's
    QCOMPARE(teaching->stepIndex(), 1);
    w.setPresenterMode(true);
    QTest::keyClick(&w, Qt::Key_Right);
    QTRY_COMPARE(teaching->stepIndex(), 2);
    QTest::keyClick(&w, Qt::Key_Left);
    QTRY_COMPARE(teaching->stepIndex(), 1);
    w.setPresenterMode(false);
  }

  // The wheel over the softmax chart moves the shown keys along a long row, and back.
  void softmaxWeightsScrollWithTheWheel() {
    DemoWindow demo;
    showDemo(demo, false);
    if (QTest::currentTestFailed()) return;
    MainWindow& w = *demo.window;
    Session& session = demo.session;
    w.showView(QStringLiteral("softmax"));
    session.selectPosition(40);
    SoftmaxView* softmax = w.softmaxView();
    QTRY_VERIFY(softmax->chart()->isVisible());
    const int first = softmax->firstShownKey();
    QVERIFY(first > 0);
    QWidget* chart = softmax->chart();
    const QPoint at = chart->rect().center();
    QWheelEvent up(at, chart->mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                   false);
    QCoreApplication::sendEvent(chart, &up);
    QCOMPARE(softmax->firstShownKey(), first - 3);
    QWheelEvent down(at, chart->mapToGlobal(at), {}, QPoint(0, -240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                     false);
    QCoreApplication::sendEvent(chart, &down);
    QCOMPARE(softmax->firstShownKey(), first + 3);
    session.selectPosition(41); // a new query shows the keys around it again
    QCOMPARE(softmax->firstShownKey(), first + 1);
  }
};

QTEST_MAIN(TestPanelSizes)
#include "tst_panel_sizes.moc"
