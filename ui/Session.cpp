// Session: loading and re-collating. The batch around the selected row is the group of
// batchSize consecutive rows it falls in, so padding shows as a trainer would produce it.
#include "ui/Session.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

Session::Session(QObject* parent) : QObject(parent) {}

bool Session::openDataset(const QString& spec) {
  try {
    std::vector<RowError> errors;
    auto rows = readDataset(spec.toStdString(), &errors);
    if (!pipeline_) {
      PipelineSpec ps;
      ps.tokenizerSpec = tokenizerSpec_.toStdString();
      ps.templateSpec = templateSpec_.toStdString();
      ps.collatorSpec = collatorSpec_.toStdString();
      pipeline_ = std::make_unique<DatasetPipeline>(ps);
    }
    conversations_ = std::move(rows);
    rowErrors_.clear();
    for (const auto& e : errors) rowErrors_ << QString::fromStdString(e.toString());
    datasetSpec_ = spec;
    selected_ = conversations_.empty() ? -1 : 0;
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  Q_EMIT datasetChanged();
  rebuildBatch();
  return true;
}

bool Session::setPipeline(const QString& tokenizerSpec, const QString& templateSpec, const QString& collatorSpec) {
  try {
    PipelineSpec ps;
    ps.tokenizerSpec = tokenizerSpec.toStdString();
    ps.templateSpec = templateSpec.toStdString();
    ps.collatorSpec = collatorSpec.toStdString();
    pipeline_ = std::make_unique<DatasetPipeline>(ps);
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  tokenizerSpec_ = tokenizerSpec;
  templateSpec_ = templateSpec;
  collatorSpec_ = collatorSpec;
  rebuildBatch();
  return true;
}

bool Session::setCollator(const QString& collatorSpec) {
  if (!pipeline_) return setPipeline(tokenizerSpec_, templateSpec_, collatorSpec);
  try {
    auto next = std::make_unique<DatasetPipeline>(*pipeline_, parseCollatorSpec(collatorSpec.toStdString()));
    pipeline_ = std::move(next);
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  collatorSpec_ = collatorSpec;
  rebuildBatch();
  return true;
}

void Session::selectRow(int row) {
  if (row < 0 || row >= rowCount() || row == selected_) return;
  selected_ = row;
  rebuildBatch();
}

void Session::setBatchSize(int rows) {
  rows = std::clamp(rows, 1, 64);
  if (rows == batchSize_) return;
  batchSize_ = rows;
  rebuildBatch();
}

QString Session::tokenText(int64_t id) const {
  if (!pipeline_) return QString::number(id);
  return QString::fromStdString(pipeline_->tokenizer().displayText(int32_t(id)));
}

void Session::rebuildBatch() {
  batch_ = Batch();
  tokenized_.reset();
  batchRow_ = 0;
  if (!pipeline_ || selected_ < 0) { Q_EMIT batchChanged(); return; }
  try {
    const int first = selected_ - selected_ % batchSize_;
    const int last = std::min(rowCount(), first + batchSize_);
    std::vector<TokenizedConversation> rows;
    for (int r = first; r < last; ++r) {
      rows.push_back(pipeline_->encode(conversations_[size_t(r)]));
      if (r == selected_) tokenized_ = std::make_unique<TokenizedConversation>(rows.back());
    }
    batch_ = pipeline_->collate(rows);
    const long wanted = conversations_[size_t(selected_)].rowIndex;
    for (int64_t r = 0; r < batch_.batchSize(); ++r) {
      bool holds = batch_.sourceRows[size_t(r)] == wanted;
      for (const Segment& s : batch_.segments[size_t(r)]) holds = holds || s.sourceRow == wanted;
      if (holds) { batchRow_ = int(r); break; }
    }
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
  }
  Q_EMIT batchChanged();
}

} // namespace maskscope
