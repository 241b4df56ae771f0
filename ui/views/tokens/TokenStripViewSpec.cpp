// The token strip's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/shell/ViewRegistry.h"
#include "ui/views/tokens/TokenStripView.h"

#include <QApplication>
#include <QScrollBar>

namespace maskscope {

ViewSpec tokenStripViewSpec() {
  return {QStringLiteral("tokens"),
          viewTr("Token strip"),
          {},
          Qt::NoDockWidgetArea,
          {},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new TokenStripView(h.session); }, // sized in chip lines
          [](QWidget* w) { return viewAs<TokenStripView>(w)->viewport(); },
          // What the strip shows: scrolled to the selected position, if any.
          [](QWidget* w, QPainter& p, QRect r) {
            auto* strip = viewAs<TokenStripView>(w);
            strip->renderTo(p, r, strip->verticalScrollBar()->value());
          },
          [](QWidget* w, const ViewSnapshot&) {
            w->show(); // lays the chips out and scrolls to the selected position
            QApplication::processEvents();
          }};
}

} // namespace maskscope
