// Compare mode's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/shell/ViewRegistry.h"
#include "ui/views/compare/CompareView.h"

namespace maskscope {

ViewSpec compareViewSpec() {
  return {QStringLiteral("compare"),
          viewTr("Compare"),
          QStringLiteral("compareDock"),
          Qt::BottomDockWidgetArea,
          {},
          OffscreenRender::Grab,
          [](const ViewHost& h) { return new CompareView(h.session); },
          [](QWidget* w) { return w; },
          {},
          [](QWidget* w, const ViewSnapshot& s) {
            if (!s.compareA.isEmpty()) viewAs<CompareView>(w)->setCollators(s.compareA, s.compareB);
          }};
}

} // namespace maskscope
