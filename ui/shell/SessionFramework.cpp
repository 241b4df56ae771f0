// Session, framework mode (core/frameworks): the dataset's raw rows, the framework's preparation kept
// while only the row or the batch size changes, the batch of the selected row's group of prepared
// rows, the prepared/batch stage of the row list, and the default tokenizer of pre-tokenized rows.
#include "core/collate/BatchAroundRow.h"
#include "core/collate/CollatorSpec.h"
#include "core/data/RowShapes.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/util/Error.h"
#include "ui/shell/FrameworkSource.h"
#include "ui/shell/Session.h"

#include <QFileInfo>
#include <algorithm>

namespace maskscope {

namespace {

std::vector<std::pair<std::string, std::string>> varList(const std::map<std::string, std::string>& vars) {
  return {vars.begin(), vars.end()};
}

} // namespace

const FrameworkSpec* Session::frameworkSpec() const { return framework_ ? &framework_->spec() : nullptr; }

const PreparedFramework* Session::preparedFramework() const { return framework_ ? framework_->prepared() : nullptr; }

QString Session::frameworkError() const { return framework_ ? QString::fromStdString(framework_->error()) : QString(); }

std::optional<Conversation> Session::frameworkConversation() const {
  const long row = selectedDatasetRow();
  if (!isFramework() || row < 0 || size_t(row) >= rawRows_.size()) return std::nullopt;
  const InputRow& r = rawRows_[size_t(row)];
  if (isPreTokenizedRow(r.value)) return std::nullopt;
  try {
    Conversation c = conversationFromJson(r.value);
    c.sourceFile = r.file;
    c.sourceLine = r.line;
    c.rowIndex = r.index;
    return c;
  } catch (const std::exception&) {
    return std::nullopt; // a shape only the framework reads
  }
}

void Session::checkPresetAllowed(const QString& tokenizerSpec) const {
  if (source_ == Source::Dataset && preTokenized_)
    throw Error("the rows of " + datasetSpec_.toStdString() +
                " are token ids already (input_ids, ...): a framework collates them; pick one in the toolbar's "
                "Framework box or open its config (File > Open framework config)");
  if (tokenizerSpec == noTokenizer())
    throw Error("a collator preset renders and tokenizes conversations: pick a tokenizer (\"none\" shows a "
                "framework's pre-tokenized rows as ids)");
}

bool Session::reopensAsRows() const {
  if (source_ != Source::BatchDump) return false;
  const QString suffix = QFileInfo(datasetSpec_).suffix().toLower();
  return suffix == QLatin1String("json") || suffix == QLatin1String("jsonl");
}

bool Session::reopenAsRows() {
  Q_EMIT pipelineChanged();
  return openDataset(datasetSpec_); // the framework is set: the file's rows are read as its rows
}

void Session::readRawRows() {
  std::vector<RowError> errors;
  try {
    rawRows_ = readFrameworkRows(datasetSpec_.toStdString(), 0, -1, &errors);
  } catch (const std::exception& e) {
    rawRows_.clear();
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
  }
}

bool Session::applyTokenizerDefault() {
  if (tokenizerChosen_) return false;
  const QString want =
      isFramework() && preTokenized_ && source_ == Source::Dataset ? noTokenizer() : QStringLiteral("builtin:demo");
  if (want == tokenizerSpec_) return false;
  try {
    pipeline_ = want == noTokenizer() ? nullptr : makePipeline(want, templateSpec_, collatorSpec_);
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  tokenizerSpec_ = want;
  preparedKey_.clear();
  return true;
}

long Session::selectedDatasetRow() const {
  if (selected_ < 0 || source_ != Source::Dataset) return -1;
  if (isFramework() && stage_ == Stage::Prepared) {
    const PreparedFramework* p = framework_->prepared();
    if (!p || size_t(selected_) >= p->rows().size() || p->rows()[size_t(selected_)].sourceRows.empty()) return -1;
    return p->rows()[size_t(selected_)].sourceRows.front();
  }
  return selected_;
}

long Session::selectedLine() const {
  const long row = selectedDatasetRow();
  if (row < 0) return -1;
  if (isFramework() || preTokenized_) return size_t(row) < rawRows_.size() ? rawRows_[size_t(row)].line : -1;
  return conversationLine(row);
}

void Session::selectLine(long line) {
  selected_ = rowCount() > 0 ? 0 : -1;
  if (line < 0) return;
  if (isFramework() || preTokenized_) {
    for (size_t r = 0; r < rawRows_.size(); ++r)
      if (rawRows_[r].line == line) {
        selected_ = int(r);
        if (isFramework() && stage_ == Stage::Prepared) selected_ = std::max(0, framework_->preparedRowOf(long(r)));
        return;
      }
    return;
  }
  for (int r = 0; r < conversationCount(); ++r)
    if (conversationLine(r) == line) selected_ = r;
}

void Session::selectDatasetRow(long row) {
  if (isFramework() && stage_ == Stage::Prepared) {
    const int p = framework_->preparedRowOf(row);
    if (p >= 0) selectRow(p);
    return;
  }
  if (row >= 0 && row <= INT32_MAX) selectRow(int(row));
}

void Session::setStage(Stage stage) {
  if (!isFramework() || stage == stage_) return;
  prepareFramework();
  const long line = selectedLine();
  stage_ = stage;
  selectLine(line);
  Q_EMIT rowsChanged();
  rebuildBatch();
}

QString Session::preparationKey() const {
  QStringList key{datasetSpec_, tokenizerSpec_, templateSpec_, collatorSpec_};
  for (const auto& [k, v] : templateVariables_) key << QString::fromStdString(k + "=" + v);
  return key.join(QChar(0x1f));
}

bool Session::prepareFramework() {
  if (!framework_ || source_ != Source::Dataset || preparationKey() == preparedKey_) return false;
  preparedKey_ = preparationKey();
  const std::shared_ptr<const Tokenizer> tok = tokenizerPtr();
  std::shared_ptr<const ChatTemplate> tmpl = tok && pipeline_ ? pipeline_->encoder().templatePtr() : nullptr;
  framework_->prepare(rawRows_, tok, std::move(tmpl), varList(templateVariables_));
  if (stage_ == Stage::Prepared) {
    if (selected_ >= rowCount()) selected_ = rowCount() - 1;
    Q_EMIT rowsChanged();
  }
  return true;
}

void Session::rebuildFrameworkBatch() {
  prepareFramework();
  if (selected_ < 0) {
    position_ = -1;
    Q_EMIT batchChanged();
    return;
  }
  try {
    if (!isFramework())
      throw Error("the rows of " + datasetSpec_.toStdString() +
                  " are token ids already (input_ids, ...): a framework collates them; pick one in the toolbar's "
                  "Framework box or open its config (File > Open framework config)");
    if (!framework_->prepared()) throw Error(framework_->error());
    const int p = stage_ == Stage::Prepared ? selected_ : framework_->preparedRowOf(selected_);
    if (p < 0) throw Error(framework_->missingReason(selected_));
    preparedRow_ = p;
    int row = 0;
    auto run = std::make_shared<FrameworkRun>(framework_->batchOf(p, batchSize_, &row));
    batch_ = run->view;
    batchRow_ = row;
    run_ = std::move(run);
  } catch (const std::exception& e) {
    batch_ = Batch();
    run_.reset();
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
  }
  if (position_ >= int(batch_.length())) position_ = int(batch_.length()) - 1;
  Q_EMIT batchChanged();
}

QString Session::rawRowTitle(int row, int firstChars) const {
  const InputRow& r = rawRows_[size_t(row)];
  if (!isPreTokenizedRow(r.value)) {
    try {
      return conversationTitle(conversationFromJson(r.value), r.index, firstChars);
    } catch (const std::exception&) {
    }
  }
  // Pre-tokenized (or a shape only the framework reads): its columns and their lengths.
  QString text = QString::number(r.index) + QStringLiteral(" ");
  for (auto it = r.value.begin(); it != r.value.end(); ++it) {
    text += QStringLiteral(" ") + QString::fromStdString(it.key());
    if (it->is_array())
      text += QStringLiteral("[%1]").arg(it->size());
    else if (it->is_string())
      text += QStringLiteral(": ") + QString::fromStdString(it->get<std::string>()).simplified().left(40);
  }
  return text;
}

Batch Session::collateFrameworkWith(const QString& collatorSpec, int* batchRow) const {
  const long datasetRow = selectedDatasetRow();
  const std::string spec = collatorSpec.toStdString();
  if (isFrameworkSpec(spec)) {
    if (isFramework() && collatorSpec == collatorSpec_ && run_) {
      if (batchRow) *batchRow = batchRow_;
      return batch_;
    }
    // Another framework on the same rows, tokenizer and template: prepared whole, the selected row's batch.
    const std::vector<InputRow> rows =
        rawRows_.empty() ? readFrameworkRows(datasetSpec_.toStdString(), 0, -1) : rawRows_;
    FrameworkSource other(spec);
    const std::shared_ptr<const Tokenizer> tok = tokenizerPtr();
    other.prepare(rows, tok, tok && pipeline_ ? pipeline_->encoder().templatePtr() : nullptr,
                  varList(templateVariables_));
    long row = datasetRow;
    if (!isFramework() && !preTokenized_) { // the list shows conversations: find the row by its line
      const long line = selectedLine();
      for (const InputRow& r : rows)
        if (r.line == line) row = r.index;
    }
    const int p = other.preparedRowOf(row);
    if (p < 0) throw Error(other.missingReason(row));
    int r = 0;
    Batch b = other.batchOf(p, batchSize_, &r).view;
    if (batchRow) *batchRow = r;
    return b;
  }
  // A preset on a framework's rows: the conversations of the same lines, when the rows are conversations.
  if (preTokenized_ || !pipeline_ || conversationCount() == 0)
    throw Error("a collator preset renders conversations; these rows are a framework's (compare two framework specs)");
  const long line = selectedLine();
  int index = -1;
  for (int c = 0; c < conversationCount(); ++c)
    if (conversationLine(c) == line) index = c;
  if (index < 0) throw Error("the selected row is not a conversation a collator preset can render");
  DatasetPipeline other(*pipeline_, parseCollatorSpec(spec));
  BatchAroundRow around = conversationBatch(other, index);
  if (batchRow) *batchRow = around.batchRow;
  return std::move(around.batch);
}

} // namespace maskscope
