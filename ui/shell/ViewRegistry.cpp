// The table of views: one row per view, each row defined beside its view (ui/views/<view>/*Spec.cpp,
// ui/dataset, ui/teaching, ui/lab); nothing else in the app lists the views.
#include "ui/shell/ViewRegistry.h"
#include "ui/dataset/DatasetView.h"
#include "ui/lab/TrainingLabView.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/attention/AttentionView.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/framework/FrameworkView.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/loss/LossView.h"
#include "ui/views/preference/PreferenceView.h"
#include "ui/views/renderdiff/RenderDiffView.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/views/table/PositionTableView.h"
#include "ui/views/tokens/TokenStripView.h"

#include <QCoreApplication>

namespace maskscope {

QString viewTr(const char* text) { return QCoreApplication::translate("maskscope::ViewRegistry", text); }

const std::vector<ViewSpec>& viewRegistry() {
  static const std::vector<ViewSpec> views = {
      tokenStripViewSpec(), attentionViewSpec(),     datasetViewSpec(),     lintViewSpec(),       softmaxViewSpec(),
      lossViewSpec(),       positionTableViewSpec(), compareViewSpec(),     preferenceViewSpec(), frameworkViewSpec(),
      renderDiffViewSpec(), teachingViewSpec(),      trainingLabViewSpec(),
  };
  return views;
}

const ViewSpec* findView(const QString& name) {
  for (const ViewSpec& v : viewRegistry())
    if (v.name == name) return &v;
  return nullptr;
}

QStringList viewNames() {
  QStringList names;
  for (const ViewSpec& v : viewRegistry()) names << v.name;
  names << QStringLiteral("window");
  return names;
}

} // namespace maskscope
