// The render-diff view follows the session: a new dataset, pipeline or selected row recomputes the
// comparison of that row (a few renders of its prefixes) on the UI thread.
#include "ui/views/renderdiff/RenderDiffView.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/frameworks/PreparedFramework.h"
#include "ui/shell/Session.h"
#include "ui/views/renderdiff/RenderDiffCanvas.h"

#include <QFile>
#include <QFileInfo>

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

// The conversation of the selected row: the dataset's, or in framework mode the raw row read as one
// (the messages the framework renders). Empty with *why set
// when the row has none.
std::optional<Conversation> RenderDiffView::selectedConversation(QString* why) const {
  const int row = session_->selectedRow();
  if (!session_->pipeline() || row < 0 || row >= session_->rowCount() || session_->preferenceRow(row) ||
      session_->isBatchDump()) {
    *why = tr("Training vs serving render: open a dataset of conversations (a batch dump or preference data has "
              "no serving render to compare).");
    return std::nullopt;
  }
  if (session_->isFramework()) {
    std::optional<Conversation> c = session_->frameworkConversation();
    if (!c)
      *why = tr("Training vs serving render: the selected row of %1 is no conversation (token ids or a text column): "
                "nothing to render for a server.")
                 .arg(QFileInfo(session_->datasetSpec()).fileName());
    return c;
  }
  if (!session_->hasConversations()) {
    *why = tr("Training vs serving render: the rows are token ids already: no conversation to render for a server.");
    return std::nullopt;
  }
  try {
    return session_->conversation(row); // read back from the file: refused when it changed on disk
  } catch (const std::exception& e) {
    *why = tr("Row %1: %2").arg(row).arg(QString::fromUtf8(e.what()));
    return std::nullopt;
  }
}

// The pipeline whose template renders both sides: the session's, or in framework mode the Jinja chat
// template the framework chose itself (Axolotl's chat_template: chatml), loaded with the session's
// tokenizer and kept while its text is the same. Null with *why set when the framework renders in a
// format of its own (LLaMA-Factory's templates): there is no Jinja render to compare then.
const DatasetPipeline* RenderDiffView::renderingPipeline(QString* templateName, QString* why) {
  const DatasetPipeline* session = session_->pipeline();
  *templateName = session_->templateSpec().isEmpty() ? tr("the tokenizer's") : session_->templateSpec();
  const FrameworkSpec* fw = session_->frameworkSpec();
  const PreparedFramework* prepared = session_->preparedFramework();
  if (!fw || !prepared) return session;
  const FrameworkFacts& facts = prepared->facts();
  if (!facts.nativeTemplate.empty()) {
    *why = tr("Training vs serving render: %1 renders with a template of its own format (%2), not a Jinja chat "
              "template a server applies: nothing to compare.")
               .arg(QString::fromStdString(fw->framework), QString::fromStdString(facts.nativeTemplate));
    return nullptr;
  }
  if (facts.chatTemplateText.empty()) return session;
  *templateName = QString::fromStdString(facts.chatTemplateOrigin);
  const QString key = session_->tokenizerSpec() + QChar(0x1f) + QString::fromStdString(facts.chatTemplateText);
  if (key == frameworkKey_ && frameworkPipeline_) return frameworkPipeline_.get();
  frameworkPipeline_.reset();
  frameworkKey_ = key;
  QFile file(templateDir_.filePath(QStringLiteral("framework-template.jinja")));
  if (!templateDir_.isValid() || !file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      file.write(QByteArray::fromStdString(facts.chatTemplateText)) < 0) {
    *why = tr("Training vs serving render: cannot write %1's chat template to %2").arg(*templateName, file.fileName());
    return nullptr;
  }
  file.close();
  PipelineSpec spec;
  spec.tokenizerSpec = session_->tokenizerSpec().toStdString();
  spec.templateSpec = file.fileName().toStdString();
  spec.render.variables = session_->templateVariables();
  try {
    frameworkPipeline_ = std::make_unique<DatasetPipeline>(spec);
  } catch (const std::exception& e) {
    *why = tr("Training vs serving render: %1: %2").arg(*templateName, QString::fromUtf8(e.what()));
  }
  return frameworkPipeline_.get();
}

void RenderDiffView::rebuild() {
  QString why, templateName;
  const std::optional<Conversation> c = selectedConversation(&why);
  const DatasetPipeline* pipeline = c ? renderingPipeline(&templateName, &why) : nullptr;
  if (!c || !pipeline) {
    canvas_->setMessage(why);
    return;
  }
  const int row = session_->selectedRow();
  try {
    std::vector<TurnDiff> turns = diffTrainServe(*pipeline, *c);
    int differ = 0;
    for (const TurnDiff& t : turns) differ += t.verdict != TrainServeVerdict::Identical;
    QString title = tr("Row %1 (line %2): %3 of %4 assistant turns are trained on other tokens than a "
                       "server feeds the model")
                        .arg(session_->isFramework() ? int(c->rowIndex) : row)
                        .arg(c->sourceLine)
                        .arg(differ)
                        .arg(turns.size());
    // A framework's training side here is its chat template's render, not its own preparation: said so.
    if (const FrameworkSpec* fw = session_->frameworkSpec())
      title += tr(" (both sides rendered with the chat template %1 uses, %2; the tokens it trains on are in the "
                  "Framework panel)")
                   .arg(QString::fromStdString(fw->framework), templateName);
    canvas_->setTurns(title, std::move(turns), &pipeline->tokenizer());
  } catch (const std::exception& e) {
    canvas_->setMessage(tr("Row %1: the template refuses it: %2").arg(row).arg(QString::fromUtf8(e.what())));
  }
}

} // namespace maskscope
