// The Training lab's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/lab/TrainingLabView.h"
#include "ui/shell/ViewRegistry.h"

namespace maskscope {

ViewSpec trainingLabViewSpec() {
  return {QStringLiteral("lab"),
          viewTr("Training lab"),
          QStringLiteral("trainingLabDock"),
          Qt::BottomDockWidgetArea,
          {1024, 768},
          OffscreenRender::Grab, // live Qt Charts and text: the panel as it is on screen
          [](const ViewHost&) { return new TrainingLabView; },
          [](QWidget* w) { return w; },
          {},
          {}};
}

} // namespace maskscope
