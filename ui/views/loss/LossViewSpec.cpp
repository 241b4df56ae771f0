// The loss view's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/model/ModelRunner.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/views/loss/LossView.h"

namespace maskscope {

ViewSpec lossViewSpec() {
  return {QStringLiteral("loss"),
          viewTr("Loss"),
          QStringLiteral("lossDock"),
          Qt::BottomDockWidgetArea,
          {900, 420},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new LossView(h.session); },
          [](QWidget* w) { return viewAs<LossView>(w)->chart(); },
          paintWith<LossView>,
          [](QWidget* w, const ViewSnapshot& s) {
            if (!s.run) return;
            viewAs<LossView>(w)->setModelNll(s.run->output.perTokenNll, s.modelLabel);
            viewAs<LossView>(w)->setRowReport(s.run->rowReport, s.run->reportError);
          }};
}

} // namespace maskscope
