// The render-diff view follows the session: a new dataset, pipeline or selected row recomputes the
// comparison of that row (a few renders of its prefixes) on the UI thread.
#include "ui/views/renderdiff/RenderDiffView.h"
#include "ui/shell/Session.h"
#include "ui/views/renderdiff/RenderDiffCanvas.h"

namespace maskscope {

RenderDiffView::RenderDiffView(Session* session, QWidget* parent)
    : QScrollArea(parent), session_(session), canvas_(new RenderDiffCanvas) {
  setObjectName(QStringLiteral("renderDiffView"));
  setWidget(canvas_);
  setWidgetResizable(true);
  connect(session_, &Session::datasetChanged, this, &RenderDiffView::rebuild);
  connect(session_, &Session::pipelineChanged, this, &RenderDiffView::rebuild);
  connect(session_, &Session::batchChanged, this, &RenderDiffView::rebuild);
  rebuild();
}

void RenderDiffView::rebuild() {
  const int row = session_->selectedRow();
  const DatasetPipeline* pipeline = session_->pipeline();
  if (!session_->hasConversations() || !pipeline || row < 0 || row >= session_->rowCount() ||
      session_->preferenceRow(row)) {
    canvas_->setMessage(tr("Training vs serving render: open a dataset of conversations (a batch dump or "
                           "preference data has no serving render to compare)."));
    return;
  }
  Conversation c;
  try {
    c = session_->conversation(row); // read back from the file: refused when it changed on disk
  } catch (const std::exception& e) {
    canvas_->setMessage(tr("Row %1: %2").arg(row).arg(QString::fromUtf8(e.what())));
    return;
  }
  try {
    std::vector<TurnDiff> turns = diffTrainServe(*pipeline, c);
    int differ = 0;
    for (const TurnDiff& t : turns) differ += t.verdict != TrainServeVerdict::Identical;
    const QString title = tr("Row %1 (line %2): %3 of %4 assistant turns are trained on other tokens than a "
                             "server feeds the model")
                              .arg(row)
                              .arg(c.sourceLine)
                              .arg(differ)
                              .arg(turns.size());
    canvas_->setTurns(title, std::move(turns), &pipeline->tokenizer());
  } catch (const std::exception& e) {
    canvas_->setMessage(tr("Row %1: the template refuses it: %2").arg(row).arg(QString::fromUtf8(e.what())));
  }
}

} // namespace maskscope
