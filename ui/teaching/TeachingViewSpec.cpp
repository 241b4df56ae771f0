// Teaching mode's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/lab/TrainingLabForm.h"
#include "ui/lab/TrainingLabView.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/softmax/SoftmaxView.h"

namespace maskscope {

ViewSpec teachingViewSpec() {
  return {QStringLiteral("teaching"),
          viewTr("Teaching"),
          QStringLiteral("teachingDock"),
          Qt::BottomDockWidgetArea,
          {},
          OffscreenRender::Window, // a step drives the real views: the snapshot is the window a class sees
          [](const ViewHost& h) {
            MainWindow* window = h.window;
            auto* view = new TeachingView(h.session, [window](const QString& v, bool example) {
              window->showView(v, false);
              if (v == QLatin1String("lab")) // "Train it and see": the stop-token experiment, ready to start
                viewAs<TrainingLabView>(window->view(v))->form()->selectExperiment(QStringLiteral("stop-token"));
              if (v == QLatin1String("softmax"))
                example ? window->softmaxView()->showTeachingExample() : window->softmaxView()->showSelectedRow();
            });
            view->setLintNow([window] {
              if (window && window->lintView()) window->lintView()->lintCurrentBatch();
            });
            return view;
          },
          [](QWidget* w) { return w; },
          {},
          [](QWidget* w, const ViewSnapshot& s) {
            if (s.teachingStep > 0) viewAs<TeachingView>(w)->goToStep(s.teachingStep - 1);
          }};
}

} // namespace maskscope
