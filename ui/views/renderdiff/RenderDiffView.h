// The render-diff view: for the selected dataset row, each assistant turn's training tokens above
// the tokens a server feeds the model when it generates that turn, aligned, differences marked
// (core/collate/TrainServeDiff.h; the same comparison as `maskscope render-diff`).
#pragma once
#include <QScrollArea>

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
  Session* session_;
  RenderDiffCanvas* canvas_;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in RenderDiffViewSpec.cpp.
struct ViewSpec;
ViewSpec renderDiffViewSpec();

} // namespace maskscope
