// The app's views in one table: name (`--view`, showView, export), title (dock and menus), factory,
// how it renders off screen, its least export size and where it sits in the window. The menus, the
// docks, MainWindow::showView, export and `maskscope snapshot --view` all read this table, so a new
// view is its own folder (the widget and its `<Name>Spec.cpp` row) plus one line in ViewRegistry.cpp.
#pragma once
#include "core/table/PositionTable.h"

#include <QRect>
#include <QSize>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <vector>

class QPainter;
class QWidget;

namespace maskscope {

class MainWindow;
class Session;
struct ModelRun;

// How a view renders off screen (File > Export, `maskscope snapshot`).
enum class OffscreenRender {
  Paint,  // a fresh instance painted through the view's own paint function, at any size (vector in SVG)
  Grab,   // the window's instance grabbed as a widget at the requested size
  Window, // the whole window with the view raised (the view explains the other views)
};

// What a view is built with: the shared session and the window that hosts it (for views that
// drive other views, as teaching does).
struct ViewHost {
  Session* session = nullptr;
  MainWindow* window = nullptr;
};

// What `maskscope snapshot` asks of a view beyond its size.
struct ViewSnapshot {
  Session* session = nullptr;
  const ModelRun* run = nullptr; // --model: one forward pass, already run
  QString modelLabel;
  double zoom = 1.0;                              // attention: zoom around the selected position
  bool softmaxExample = false;                    // softmax: the 2.0 / 1.0 / 0.1 teaching row
  QString compareA, compareB;                     // compare: the two collators (empty: the panel's own)
  int teachingStep = 0;                           // teaching: 1-based step, 0 = the introduction
  std::optional<PositionTableFilter> tableFilter; // table: --hide system,whitespace,padding
  // attention, softmax: the layer shown (--layer with --model, or --window without one).
  int64_t window = 0; // sliding window of that layer; 0 = full attention
  double softcap = 0; // the model's attention-logit soft-cap; 0 = none
  QString layerText;  // "layer 3 — sliding, window 4096"
};

struct ViewSpec {
  QString name;            // command-line and API name: "softmax"
  QString title;           // dock title and menu text
  QString dockName;        // the dock's objectName (saved layouts refer to it); empty in the centre
  Qt::DockWidgetArea area; // Qt::NoDockWidgetArea: in the centre, top to bottom in table order
  QSize exportSize;        // least size of an export (the on-screen size when larger)
  OffscreenRender offscreen;
  std::function<QWidget*(const ViewHost&)> create;               // a new instance, without parent
  std::function<QWidget*(QWidget* view)> canvas;                 // whose on-screen size an export takes
  std::function<void(QWidget* view, QPainter&, QRect)> paint;    // Paint views
  std::function<void(QWidget* view, const ViewSnapshot&)> setUp; // snapshot options; may be empty
};

// Helpers for the rows (*Spec.cpp): translated text in the registry's context, the view's own type,
// and painting through the view's `render(QPainter&, QRect)`.
QString viewTr(const char* text);
template <class View> View* viewAs(QWidget* w) { return static_cast<View*>(w); }
template <class View> void paintWith(QWidget* w, QPainter& p, QRect r) { viewAs<View>(w)->render(p, r); }

// Every view, in the order of the menus and of the docks in one area.
const std::vector<ViewSpec>& viewRegistry();
// nullptr for an unknown name.
const ViewSpec* findView(const QString& name);
// The names `snapshot --view` and exports accept: every view, then "window".
QStringList viewNames();

} // namespace maskscope
