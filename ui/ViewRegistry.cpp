// The table of views. Each row says how the view is made, where it sits, how it renders off
// screen and which snapshot options it takes; nothing else in the app lists the views.
#include "ui/ViewRegistry.h"
#include "ui/AttentionGridView.h"
#include "ui/AttentionPane.h"
#include "ui/ComparePanel.h"
#include "ui/DatasetBrowser.h"
#include "ui/LintPanel.h"
#include "ui/LossView.h"
#include "ui/MainWindow.h"
#include "ui/ModelRunner.h"
#include "ui/PositionTableView.h"
#include "ui/PreferenceView.h"
#include "ui/Session.h"
#include "ui/SoftmaxView.h"
#include "ui/TeachingPanel.h"
#include "ui/TokenStripView.h"
#include "ui/TrainingLabForm.h"
#include "ui/TrainingLabPanel.h"

#include <QApplication>
#include <QScrollBar>

namespace maskscope {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("maskscope::ViewRegistry", text); }

template <class View> View* as(QWidget* w) { return static_cast<View*>(w); }

// Paints a view through its own `render(QPainter&, QRect)`.
template <class View> void paintWith(QWidget* w, QPainter& p, QRect r) { as<View>(w)->render(p, r); }

ViewSpec tokens() {
  return {QStringLiteral("tokens"),
          tr("Token strip"),
          {},
          Qt::NoDockWidgetArea,
          {},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new TokenStripView(h.session); }, // sized in chip lines
          [](QWidget* w) { return as<TokenStripView>(w)->viewport(); },
          // What the strip shows: scrolled to the selected position, if any.
          [](QWidget* w, QPainter& p, QRect r) {
            auto* strip = as<TokenStripView>(w);
            strip->renderTo(p, r, strip->verticalScrollBar()->value());
          },
          [](QWidget* w, const ViewSnapshot&) {
            w->show(); // lays the chips out and scrolls to the selected position
            QApplication::processEvents();
          }};
}

ViewSpec attention() {
  return {QStringLiteral("attention"),
          tr("Attention grid"),
          {},
          Qt::NoDockWidgetArea,
          {},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new AttentionPane(h.session); },
          [](QWidget* w) -> QWidget* { return as<AttentionPane>(w)->grid(); },
          [](QWidget* w, QPainter& p, QRect r) { as<AttentionPane>(w)->grid()->render(p, r); },
          [](QWidget* w, const ViewSnapshot& s) {
            AttentionGridView* grid = as<AttentionPane>(w)->grid();
            grid->setLayerAttention(s.window, s.layerText);
            if (s.zoom <= 1.0) return;
            const double n = double(grid->gridSize());
            const double side = n / s.zoom;
            const double c = s.session->selectedPosition() >= 0 ? s.session->selectedPosition() + 0.5 : n / 2;
            grid->setViewRect(QRectF(c - side / 2, c - side / 2, side, side));
          }};
}

ViewSpec dataset() {
  return {QStringLiteral("dataset"),
          tr("Dataset"),
          QStringLiteral("conversationsDock"),
          Qt::LeftDockWidgetArea,
          {},
          OffscreenRender::Grab,
          [](const ViewHost&) { return new DatasetBrowser; },
          [](QWidget* w) { return w; },
          {},
          {}};
}

ViewSpec lint() {
  return {QStringLiteral("lint"),
          tr("Lint findings"),
          QStringLiteral("lintDock"),
          Qt::BottomDockWidgetArea,
          {900, 360},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new LintPanel(h.session); },
          [](QWidget* w) { return w; },
          paintWith<LintPanel>,
          {}};
}

ViewSpec softmax() {
  return {QStringLiteral("softmax"),
          tr("Softmax"),
          QStringLiteral("softmaxDock"),
          Qt::BottomDockWidgetArea,
          {900, 420},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new SoftmaxView(h.session); },
          [](QWidget* w) { return as<SoftmaxView>(w)->chart(); },
          paintWith<SoftmaxView>,
          [](QWidget* w, const ViewSnapshot& s) {
            auto* view = as<SoftmaxView>(w);
            if (s.softmaxExample) return view->showTeachingExample();
            view->setLayerAttention(s.window, s.softcap, s.layerText);
            if (!s.run) return;
            std::vector<float> probs = rowAttention(*s.run, s.session->batchRow(), s.session->batch().length());
            if (!probs.empty())
              view->setModelScores(
                  scoresFromProbabilities(probs),
                  QStringLiteral("%1: log attention probabilities, layer %2 head 0 (scores up to a per-row constant)")
                      .arg(s.modelLabel)
                      .arg(s.run->layer));
          }};
}

ViewSpec loss() {
  return {QStringLiteral("loss"),
          tr("Loss"),
          QStringLiteral("lossDock"),
          Qt::BottomDockWidgetArea,
          {900, 420},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new LossView(h.session); },
          [](QWidget* w) { return as<LossView>(w)->chart(); },
          paintWith<LossView>,
          [](QWidget* w, const ViewSnapshot& s) {
            if (!s.run) return;
            as<LossView>(w)->setModelNll(s.run->output.perTokenNll, s.modelLabel);
            as<LossView>(w)->setRowReport(s.run->rowReport, s.run->reportError);
          }};
}

ViewSpec positionTable() {
  return {QStringLiteral("table"),
          tr("Position table"),
          QStringLiteral("positionTableDock"),
          Qt::BottomDockWidgetArea,
          {900, 420},
          OffscreenRender::Grab,
          [](const ViewHost& h) { return new PositionTableView(h.session); },
          [](QWidget* w) { return w; },
          {},
          [](QWidget* w, const ViewSnapshot& s) {
            if (s.tableFilter) as<PositionTableView>(w)->setFilter(*s.tableFilter);
          }};
}

ViewSpec compare() {
  return {QStringLiteral("compare"),
          tr("Compare"),
          QStringLiteral("compareDock"),
          Qt::BottomDockWidgetArea,
          {},
          OffscreenRender::Grab,
          [](const ViewHost& h) { return new ComparePanel(h.session); },
          [](QWidget* w) { return w; },
          {},
          [](QWidget* w, const ViewSnapshot& s) {
            if (!s.compareA.isEmpty()) as<ComparePanel>(w)->setCollators(s.compareA, s.compareB);
          }};
}

ViewSpec preference() {
  return {QStringLiteral("preference"),
          tr("Preference pair"),
          QStringLiteral("preferenceDock"),
          Qt::BottomDockWidgetArea,
          {},
          OffscreenRender::Grab,
          [](const ViewHost& h) { return new PreferenceView(h.session); },
          [](QWidget* w) { return w; },
          {},
          [](QWidget* w, const ViewSnapshot&) { as<PreferenceView>(w)->refresh(); }};
}

ViewSpec teaching() {
  return {QStringLiteral("teaching"),
          tr("Teaching"),
          QStringLiteral("teachingDock"),
          Qt::BottomDockWidgetArea,
          {},
          OffscreenRender::Window, // a step drives the real views: the snapshot is the window a class sees
          [](const ViewHost& h) {
            MainWindow* window = h.window;
            return new TeachingPanel(h.session, [window](const QString& v, bool example) {
              window->showView(v);
              if (v == QLatin1String("lab")) // "Train it and see": the stop-token experiment, ready to start
                as<TrainingLabPanel>(window->view(v))->form()->selectExperiment(QStringLiteral("stop-token"));
              if (v == QLatin1String("softmax"))
                example ? window->softmaxView()->showTeachingExample() : window->softmaxView()->showSelectedRow();
            });
          },
          [](QWidget* w) { return w; },
          {},
          [](QWidget* w, const ViewSnapshot& s) {
            if (s.teachingStep > 0) as<TeachingPanel>(w)->goToStep(s.teachingStep - 1);
          }};
}

ViewSpec lab() {
  return {QStringLiteral("lab"),
          tr("Training lab"),
          QStringLiteral("trainingLabDock"),
          Qt::BottomDockWidgetArea,
          {1024, 768},
          OffscreenRender::Grab, // live Qt Charts and text: the panel as it is on screen
          [](const ViewHost&) { return new TrainingLabPanel; },
          [](QWidget* w) { return w; },
          {},
          {}};
}

} // namespace

const std::vector<ViewSpec>& viewRegistry() {
  static const std::vector<ViewSpec> views = {tokens(),        attention(), dataset(),    lint(),     softmax(), loss(),
                                              positionTable(), compare(),   preference(), teaching(), lab()};
  return views;
}

const ViewSpec* findView(const QString& name) {
  for (const ViewSpec& v : viewRegistry())
    if (v.name == name) return &v;
  return nullptr;
}

QStringList viewNames() {
  QStringList names;
  for (const ViewSpec& v : viewRegistry()) names << v.name;
  names << QStringLiteral("window");
  return names;
}

} // namespace maskscope
