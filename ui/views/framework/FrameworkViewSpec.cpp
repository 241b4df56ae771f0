// The Framework view's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it
// docks and how it renders off screen.
#include "ui/shell/ViewRegistry.h"
#include "ui/views/framework/FrameworkView.h"

namespace maskscope {

ViewSpec frameworkViewSpec() {
  return {QStringLiteral("framework"),
          viewTr("Framework"),
          QStringLiteral("frameworkDock"),
          Qt::BottomDockWidgetArea,
          {900, 420},
          OffscreenRender::Grab,
          [](const ViewHost& h) { return new FrameworkView(h.session); },
          [](QWidget* w) { return w; },
          {},
          [](QWidget* w, const ViewSnapshot&) { viewAs<FrameworkView>(w)->refresh(); }};
}

} // namespace maskscope
