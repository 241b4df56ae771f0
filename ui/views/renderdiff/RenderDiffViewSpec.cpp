// The render-diff view's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where
// it docks, how it renders off screen.
#include "ui/shell/ViewRegistry.h"
#include "ui/views/renderdiff/RenderDiffCanvas.h"
#include "ui/views/renderdiff/RenderDiffView.h"

namespace maskscope {

ViewSpec renderDiffViewSpec() {
  return {QStringLiteral("renderdiff"),
          viewTr("Train vs serve"),
          QStringLiteral("renderDiffDock"),
          Qt::BottomDockWidgetArea,
          {},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new RenderDiffView(h.session); },
          [](QWidget* w) { return viewAs<RenderDiffView>(w)->viewport(); },
          [](QWidget* w, QPainter& p, QRect r) { viewAs<RenderDiffView>(w)->canvas()->render(p, r); },
          {}};
}

} // namespace maskscope
