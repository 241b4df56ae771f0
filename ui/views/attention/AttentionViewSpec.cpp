// The attention grid's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/AttentionView.h"

namespace maskscope {

ViewSpec attentionViewSpec() {
  return {QStringLiteral("attention"),
          viewTr("Attention grid"),
          {},
          Qt::NoDockWidgetArea,
          {},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new AttentionView(h.session); },
          [](QWidget* w) -> QWidget* { return viewAs<AttentionView>(w)->grid(); },
          [](QWidget* w, QPainter& p, QRect r) { viewAs<AttentionView>(w)->grid()->render(p, r); },
          [](QWidget* w, const ViewSnapshot& s) {
            AttentionGridCanvas* grid = viewAs<AttentionView>(w)->grid();
            grid->setLayerAttention(s.window, s.layerText);
            if (s.zoom <= 1.0) return;
            const double n = double(grid->gridSize());
            const double side = n / s.zoom;
            const double c = s.session->selectedPosition() >= 0 ? s.session->selectedPosition() + 0.5 : n / 2;
            grid->setViewRect(QRectF(c - side / 2, c - side / 2, side, side));
          }};
}

} // namespace maskscope
