// The softmax view's row in the view registry (ui/shell/ViewRegistry.h): how it is made, where it docks,
// how it renders off screen and which snapshot options it takes.
#include "ui/model/ModelRunner.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/views/softmax/SoftmaxView.h"

namespace maskscope {

ViewSpec softmaxViewSpec() {
  return {QStringLiteral("softmax"),
          viewTr("Softmax"),
          QStringLiteral("softmaxDock"),
          Qt::BottomDockWidgetArea,
          {900, 420},
          OffscreenRender::Paint,
          [](const ViewHost& h) { return new SoftmaxView(h.session); },
          [](QWidget* w) { return viewAs<SoftmaxView>(w)->chart(); },
          paintWith<SoftmaxView>,
          [](QWidget* w, const ViewSnapshot& s) {
            auto* view = viewAs<SoftmaxView>(w);
            if (s.softmaxExample) return view->showTeachingExample();
            view->setLayerAttention(s.window, s.softcap, s.layerText);
            if (!s.run) return;
            // The engine's captured pre-softmax scores, as the app's model controller shows them.
            const int64_t T = s.session->batch().length();
            std::vector<float> scores = rowScores(*s.run, s.session->batchRow(), T);
            const QString label = modelScoresLabel(*s.run, T);
            view->setModelScores(std::move(scores),
                                 s.modelLabel.isEmpty() ? label : QStringLiteral("%1, %2").arg(s.modelLabel, label));
          }};
}

} // namespace maskscope
