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
            std::vector<float> probs = rowAttention(*s.run, s.session->batchRow(), s.session->batch().length());
            if (!probs.empty())
              view->setModelScores(
                  scoresFromProbabilities(probs),
                  QStringLiteral("%1: log attention probabilities, layer %2 head 0 (scores up to a per-row constant)")
                      .arg(s.modelLabel)
                      .arg(s.run->layer));
          }};
}

} // namespace maskscope
