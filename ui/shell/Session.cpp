// Session: loading and re-collating. The batch around the selected row is core's batchAroundRow
// (the group of batchSize consecutive rows it falls in), so padding shows as a trainer produces it.
// A batch dump is shown exactly as given: its rows are the list, no collator runs.
#include "ui/shell/Session.h"
#include "core/batchio/BatchLoader.h"
#include "core/collate/BatchAroundRow.h"
#include "core/collate/CollatorSpec.h"
#include "core/mask/RowFacts.h"
#include "core/util/Error.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

namespace maskscope {

Session::Session(QObject* parent) : QObject(parent) {}

std::unique_ptr<DatasetPipeline> Session::makePipeline(const QString& tok, const QString& tpl,
                                                       const QString& col) const {
  PipelineSpec ps;
  ps.tokenizerSpec = tok.isEmpty() ? std::string("builtin:demo") : tok.toStdString();
  ps.templateSpec = tpl.toStdString();
  ps.collatorSpec = col.isEmpty() ? std::string("default") : col.toStdString();
  ps.render.variables = templateVariables_;
  return std::make_unique<DatasetPipeline>(ps);
}

bool Session::openDataset(const QString& spec) {
  try {
    std::vector<RowError> errors;
    std::vector<Conversation> rows;
    std::vector<PreferenceRow> pairs;
    if (isPreferenceDataset(spec.toStdString())) {
      pairs = readPreferenceDataset(spec.toStdString(), &errors);
      for (const PreferenceRow& p : pairs) rows.push_back(p.side(true));
    } else {
      rows = readDataset(spec.toStdString(), &errors);
    }
    if (!pipeline_) pipeline_ = makePipeline(tokenizerSpec_, templateSpec_, collatorSpec_);
    conversations_ = std::move(rows);
    preferenceRows_ = std::move(pairs);
    dump_ = Batch();
    rowErrors_.clear();
    for (const auto& e : errors) rowErrors_ << QString::fromStdString(e.toString());
    datasetSpec_ = spec;
    source_ = Source::Dataset;
    selected_ = conversations_.empty() ? -1 : 0;
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  Q_EMIT datasetChanged();
  rebuildBatch();
  return true;
}

bool Session::openBatchDump(const QString& path) {
  try {
    Batch b = loadBatchDump(path.toStdString());
    if (b.batchSize() <= 0 || b.length() <= 0) throw Error("the batch dump holds no rows", {path.toStdString()});
    if (!pipeline_) pipeline_ = makePipeline(tokenizerSpec_, templateSpec_, collatorSpec_);
    dump_ = std::move(b);
    conversations_.clear();
    preferenceRows_.clear();
    rowErrors_.clear();
    datasetSpec_ = path;
    source_ = Source::BatchDump;
    selected_ = 0;
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  Q_EMIT datasetChanged();
  rebuildBatch();
  return true;
}

bool Session::openModelFolder(const QString& path) {
  if (!QFileInfo(path).isDir()) {
    Q_EMIT errorOccurred(tr("%1 is not a folder").arg(path));
    return false;
  }
  if (!setPipeline(path, path, collatorSpec_)) return false;
  setModelSpec(path);
  if (source_ == Source::None) openDataset(QStringLiteral("builtin:demo"));
  return true;
}

bool Session::openPath(const QString& path) {
  if (path.startsWith(QLatin1String("builtin:tiny"))) {
    setModelSpec(path);
    return true;
  }
  if (path.startsWith(QLatin1String("builtin:"))) return openDataset(path);
  QFileInfo info(path);
  if (!info.exists()) {
    Q_EMIT errorOccurred(tr("%1: no such file or folder").arg(path));
    return false;
  }
  if (info.isDir()) return openModelFolder(path);
  const QString suffix = info.suffix().toLower();
  if (suffix == QLatin1String("safetensors") || suffix == QLatin1String("pt") || suffix == QLatin1String("bin"))
    return openBatchDump(path);
  bool dump = false;
  try {
    dump = looksLikeBatchDump(path.toStdString());
  } catch (const std::exception&) {
  }
  return dump ? openBatchDump(path) : openDataset(path);
}

bool Session::setPipeline(const QString& tokenizerSpec, const QString& templateSpec, const QString& collatorSpec) {
  try {
    pipeline_ = makePipeline(tokenizerSpec, templateSpec, collatorSpec);
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  tokenizerSpec_ = tokenizerSpec.isEmpty() ? QStringLiteral("builtin:demo") : tokenizerSpec;
  templateSpec_ = templateSpec;
  collatorSpec_ = collatorSpec.isEmpty() ? QStringLiteral("default") : collatorSpec;
  Q_EMIT pipelineChanged();
  rebuildBatch();
  return true;
}

bool Session::setTokenizer(const QString& spec) { return setPipeline(spec, templateSpec_, collatorSpec_); }
bool Session::setTemplate(const QString& spec) { return setPipeline(tokenizerSpec_, spec, collatorSpec_); }

bool Session::setCollator(const QString& collatorSpec) {
  if (collatorSpec == collatorSpec_ && pipeline_) return true;
  if (!pipeline_) return setPipeline(tokenizerSpec_, templateSpec_, collatorSpec);
  try {
    auto next = std::make_unique<DatasetPipeline>(*pipeline_, parseCollatorSpec(collatorSpec.toStdString()));
    pipeline_ = std::move(next);
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  collatorSpec_ = collatorSpec;
  Q_EMIT pipelineChanged();
  rebuildBatch();
  return true;
}

void Session::setModelSpec(const QString& spec) {
  if (spec == modelSpec_) return;
  modelSpec_ = spec;
  Q_EMIT modelChanged(spec);
}

int Session::rowCount() const {
  if (source_ == Source::BatchDump) return int(dump_.batchSize());
  return int(conversations_.size());
}

QString Session::rowTitle(int row) const {
  if (row < 0 || row >= rowCount()) return {};
  if (source_ == Source::BatchDump) {
    const RowFacts f = rowFacts(dump_, row); // the counts the summary, lint and loss report
    return tr("batch row %1  (%2 real, %3 graded of %4)").arg(row).arg(f.real()).arg(f.gradedTotal()).arg(f.positions);
  }
  const Conversation& c = conversations_[size_t(row)];
  QString first;
  for (const auto& m : c.messages)
    if (m.role == "user") {
      first = QString::fromStdString(m.content);
      break;
    }
  if (first.isEmpty() && c.plainText) first = QString::fromStdString(c.plainPrompt);
  first = first.simplified();
  if (first.size() > 60) first = first.left(57) + QStringLiteral("...");
  return tr("%1  %2  (%3 msgs)").arg(c.rowIndex).arg(first).arg(c.messages.size());
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

void Session::selectPosition(int position) {
  const int n = hasBatch() ? int(batch_.length()) : 0;
  if (position >= n) position = n - 1;
  if (position < -1) position = -1;
  if (position == position_) return;
  position_ = position;
  Q_EMIT positionChanged(position_);
}

QString Session::tokenText(int64_t id) const {
  if (!pipeline_) return QString::number(id);
  if (id < 0 || id >= pipeline_->tokenizer().vocabSize()) return QStringLiteral("#%1").arg(id);
  return QString::fromStdString(pipeline_->tokenizer().displayText(int32_t(id)));
}

Batch Session::collateWith(const QString& collatorSpec, int* batchRow) const {
  if (batchRow) *batchRow = 0;
  if (source_ == Source::BatchDump) {
    if (batchRow) *batchRow = batchRow_;
    return dump_; // a dump is what it is: compare against itself (or a preset via the dataset)
  }
  if (!pipeline_ || selected_ < 0) return {};
  DatasetPipeline other(*pipeline_, parseCollatorSpec(collatorSpec.toStdString()));
  BatchAroundRow around = batchAroundRow(other, conversations_, selected_, batchSize_);
  if (batchRow) *batchRow = around.batchRow;
  return std::move(around.batch);
}

void Session::rebuildBatch() {
  batch_ = Batch();
  tokenized_.reset();
  batchRow_ = 0;
  if (!pipeline_ || selected_ < 0) {
    position_ = -1;
    Q_EMIT batchChanged();
    return;
  }
  try {
    if (source_ == Source::BatchDump) {
      batch_ = dump_;
      batchRow_ = selected_;
    } else {
      BatchAroundRow around = batchAroundRow(*pipeline_, conversations_, selected_, batchSize_);
      batch_ = std::move(around.batch);
      batchRow_ = around.batchRow;
      tokenized_ = std::make_unique<TokenizedConversation>(std::move(around.selected));
    }
  } catch (const std::exception& e) {
    batch_ = Batch();
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
  }
  if (position_ >= int(batch_.length())) position_ = int(batch_.length()) - 1;
  Q_EMIT batchChanged();
}

} // namespace maskscope
