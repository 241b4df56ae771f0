// The dataset browser's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/dataset/DatasetView.h"
#include "ui/shell/ViewRegistry.h"

namespace maskscope {

ViewSpec datasetViewSpec() {
  return {QStringLiteral("dataset"),
          viewTr("Dataset"),
          QStringLiteral("conversationsDock"),
          Qt::LeftDockWidgetArea,
          {},
          OffscreenRender::Grab,
          [](const ViewHost&) { return new DatasetView; },
          [](QWidget* w) { return w; },
          {},
          {}};
}

} // namespace maskscope
