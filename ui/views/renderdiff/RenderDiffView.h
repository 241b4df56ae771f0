// The render-diff view: for the selected dataset row, each assistant turn's training tokens above
// the tokens a server feeds the model when it generates that turn, aligned, differences marked
// (core/collate/TrainServeDiff.h; the same comparison as `maskscope render-diff`).
#pragma once
#include "core/collate/DatasetPipeline.h"
#include "core/data/Conversation.h"

#include <QScrollArea>
#include <QTemporaryDir>
#include <memory>
#include <optional>

namespace maskscope {

class Session;
class RenderDiffCanvas;

class RenderDiffView : public QScrollArea {
  Q_OBJECT
public:
  explicit RenderDiffView(Session* session, QWidget* parent = nullptr);
  RenderDiffCanvas* canvas() const { return canvas_; }
  // Recomputes the selected row's comparison (the session's signals call it).
  void rebuild();

private:
  std::optional<Conversation> selectedConversation(QString* why) const;
  const DatasetPipeline* renderingPipeline(QString* templateName, QString* why);
  Session* session_;
  RenderDiffCanvas* canvas_;
  // Framework mode: the session's tokenizer with the template the framework chose itself, its key
  // (tokenizer and template text) and the folder its template file is written to.
  std::unique_ptr<DatasetPipeline> frameworkPipeline_;
  QString frameworkKey_;
  QTemporaryDir templateDir_;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in RenderDiffViewSpec.cpp.
struct ViewSpec;
ViewSpec renderDiffViewSpec();

} // namespace maskscope
