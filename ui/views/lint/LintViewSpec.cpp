// The lint findings's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/shell/ViewRegistry.h"
#include "ui/views/lint/LintView.h"

namespace maskscope {

ViewSpec lintViewSpec() {
  return {QStringLiteral("lint"),
          viewTr("Lint findings"),
          QStringLiteral("lintDock"),
          Qt::BottomDockWidgetArea,
          {900, 360},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new LintView(h.session); },
          [](QWidget* w) { return w; },
          paintWith<LintView>,
          {}};
}

} // namespace maskscope
