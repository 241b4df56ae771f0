// The preference pair view's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/shell/ViewRegistry.h"
#include "ui/views/preference/PreferenceView.h"

namespace maskscope {

ViewSpec preferenceViewSpec() {
  return {QStringLiteral("preference"),
          viewTr("Preference pair"),
          QStringLiteral("preferenceDock"),
          Qt::BottomDockWidgetArea,
          {},
          OffscreenRender::Grab,
          [](const ViewHost& h) { return new PreferenceView(h.session); },
          [](QWidget* w) { return w; },
          {},
          [](QWidget* w, const ViewSnapshot&) { viewAs<PreferenceView>(w)->refresh(); }};
}

} // namespace maskscope
