// The Training lab's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/lab/TrainingLabView.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"

namespace maskscope {

ViewSpec trainingLabViewSpec() {
  return {QStringLiteral("lab"),
          viewTr("Training lab"),
          QStringLiteral("trainingLabDock"),
          Qt::BottomDockWidgetArea,
          {1024, 768},
          OffscreenRender::Grab, // live Qt Charts and text: the panel as it is on screen
          [](const ViewHost& h) {
            auto* lab = new TrainingLabView;
            // A finished run hands its exposure bias to the session: the teaching steps quote it.
            Session* session = h.session;
            QObject::connect(lab, &TrainingLabView::runEnded, session, [lab, session](bool finished) {
              if (finished && lab->exposure()) session->setLabExposure(*lab->exposure());
            });
            return lab;
          },
          [](QWidget* w) { return w; },
          {},
          {}};
}

} // namespace maskscope
