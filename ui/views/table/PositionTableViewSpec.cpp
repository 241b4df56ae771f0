// The position table's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/shell/ViewRegistry.h"
#include "ui/views/table/PositionTableView.h"

namespace maskscope {

ViewSpec positionTableViewSpec() {
  return {QStringLiteral("table"),
          viewTr("Position table"),
          QStringLiteral("positionTableDock"),
          Qt::BottomDockWidgetArea,
          {900, 420},
          OffscreenRender::Grab,
          [](const ViewHost& h) { return new PositionTableView(h.session); },
          [](QWidget* w) { return w; },
          {},
          [](QWidget* w, const ViewSnapshot& s) {
            if (s.tableFilter) viewAs<PositionTableView>(w)->setFilter(*s.tableFilter);
          }};
}

} // namespace maskscope
