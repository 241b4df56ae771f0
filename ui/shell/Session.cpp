// Session: loading and re-collating. The batch around the selected row is core's batchAroundRow
// (the group of batchSize consecutive rows it falls in), so padding shows as a trainer produces it.
// A batch dump's rows are the list and no collator runs; with a tokenizer that fits (or was chosen)
// it is read as lint and `loss --batch --tokenizer` read it (readDump: special ids, recovered roles).
// Framework mode (a framework spec as the collator) is in SessionFramework.cpp.
#include "ui/shell/Session.h"
#include "core/batchio/BatchLoader.h"
#include "core/capture/CaptureManifest.h"
#include "core/collate/CollatorSpec.h"
#include "core/frameworks/FrameworkBatchRows.h"
#include "core/frameworks/FrameworkPipeline.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/mask/RowFacts.h"
#include "core/util/Error.h"
#include "ui/shell/CaptureOpening.h"
#include "ui/shell/FrameworkSource.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

namespace maskscope {

namespace {
// The most rows a batch shown holds (the toolbar's Batch rows range): a framework config setting more
// is shown in batches of this many, and says so.
constexpr int kMaxBatchRows = 64;
} // namespace

Session::Session(QObject* parent) : QObject(parent) {
  // First connection: the effective mask is ready before any view hears batchChanged().
  connect(this, &Session::batchChanged, this, &Session::judgeAttention);
}
Session::~Session() = default;

std::unique_ptr<DatasetPipeline> Session::makePipeline(const QString& tok, const QString& tpl,
                                                       const QString& col) const {
  PipelineSpec ps;
  ps.tokenizerSpec = tok.isEmpty() ? std::string("builtin:demo") : tok.toStdString();
  ps.templateSpec = tpl.toStdString();
  // A framework spec is no preset: the pipeline then only gives the framework its tokenizer and template.
  const std::string col8 = col.toStdString();
  ps.collatorSpec = col8.empty() || isFrameworkSpec(col8) ? std::string("default") : col8;
  ps.render.variables = templateVariables_;
  return std::make_unique<DatasetPipeline>(ps);
}

bool Session::openDataset(const QString& spec) {
  try {
    std::vector<RowError> errors;
    std::vector<Conversation> rows;
    std::shared_ptr<const DatasetIndex> index;
    std::vector<PreferenceRow> pairs;
    std::vector<InputRow> raw;
    const std::string path = spec.toStdString();
    // Token ids already (a framework's pre-tokenized rows), or rows a collator preset renders.
    bool preTokenized = false;
    try {
      preTokenized = isPreTokenizedRow(readFrameworkRows(path, 0, 1).front().value);
    } catch (const std::exception&) {
      if (isFramework()) throw; // else the dataset reader names the problem below
    }
    if (preTokenized || isFramework()) raw = readFrameworkRows(path, 0, -1, &errors);
    if (!preTokenized) {
      std::vector<RowError>* rowErrors = raw.empty() ? &errors : nullptr;
      try {
        if (isPreferenceDataset(path)) {
          pairs = readPreferenceDataset(path, rowErrors);
          for (const PreferenceRow& p : pairs) rows.push_back(p.side(true));
        } else {
          index = DatasetIndex::build(path); // where each row lies; the rows are read back when shown
          if (rowErrors) *rowErrors = index->errors();
        }
      } catch (const std::exception&) {
        if (raw.empty()) throw; // a framework reads rows of its own shapes (TRL's "text")
      }
    }
    if (!pipeline_ && hasTokenizer() && !(preTokenized && isFramework()))
      pipeline_ = makePipeline(tokenizerSpec_, templateSpec_, collatorSpec_);
    conversations_ = std::move(rows);
    index_ = std::move(index);
    preferenceRows_ = std::move(pairs);
    rawRows_ = std::move(raw);
    preTokenized_ = preTokenized;
    dump_ = Batch();
    rowErrors_.clear();
    for (const auto& e : errors) rowErrors_ << QString::fromStdString(e.toString());
    datasetSpec_ = spec;
    source_ = Source::Dataset;
    if (stage_ == Stage::Prepared) stage_ = Stage::Batch; // the new file's rows, listed as they are
    selected_ = rowCount() > 0 ? 0 : -1;
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  if (applyTokenizerDefault()) Q_EMIT pipelineChanged();
  Q_EMIT datasetChanged();
  rebuildBatch();
  return true;
}

bool Session::openBatchDump(const QString& path, bool tokenizerChosen) {
  try {
    Batch b = loadBatchDump(path.toStdString());
    if (b.batchSize() <= 0 || b.length() <= 0) throw Error("the batch dump holds no rows", {path.toStdString()});
    if (!pipeline_ && hasTokenizer()) pipeline_ = makePipeline(tokenizerSpec_, templateSpec_, collatorSpec_);
    dump_ = std::move(b);
    conversations_.clear();
    index_.reset();
    preferenceRows_.clear();
    rawRows_.clear();
    preTokenized_ = false;
    rowErrors_.clear();
    datasetSpec_ = path;
    source_ = Source::BatchDump;
    stage_ = Stage::Batch;
    selected_ = 0;
    dumpTokenizerChosen_ = tokenizerChosen;
    judgeDumpTokenizer();
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  Q_EMIT datasetChanged();
  rebuildBatch();
  if (needsDumpTokenizer()) Q_EMIT dumpTokenizerNeeded();
  return true;
}

void Session::judgeDumpTokenizer() {
  dumpFit_ = TokenizerFit();
  if (source_ == Source::BatchDump && pipeline_)
    dumpFit_ = tokenizerFit(dump_, pipeline_->tokenizer(), pipeline_->renderOptions());
}

bool Session::chooseDumpTokenizer(const QString& spec) {
  if (spec != tokenizerSpec_) return setTokenizer(spec); // a choice while the dump is open: honoured
  dumpTokenizerChosen_ = true;
  Q_EMIT pipelineChanged();
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
  // A capture folder, or a batch file inside one (docs/capture.md): with the manifest's tokenizer and template.
  if (info.isDir()) return isCaptureFolder(path.toStdString()) ? openCaptureFolder(*this, path) : openModelFolder(path);
  const QString suffix = info.suffix().toLower();
  if (suffix == QLatin1String("safetensors"))
    if (const std::string folder = captureFolderOf(path.toStdString()); !folder.empty())
      return openCaptureFolder(*this, QString::fromStdString(folder), path);
  if (suffix == QLatin1String("safetensors") || suffix == QLatin1String("pt") || suffix == QLatin1String("bin"))
    return openBatchDump(path);
  bool dump = false;
  try {
    dump = looksLikeBatchDump(path.toStdString());
  } catch (const std::exception&) {
  }
  // With a framework, JSON rows holding input_ids are its pre-tokenized rows, never a dump.
  return dump && !isFramework() ? openBatchDump(path) : openDataset(path);
}

bool Session::setPipeline(const QString& tokenizerSpec, const QString& templateSpec, const QString& collatorSpec) {
  // An empty tokenizer is the default: builtin:demo, or none for a framework's pre-tokenized rows.
  const bool chosen = !tokenizerSpec.isEmpty();
  const QString tok = chosen ? tokenizerSpec : QStringLiteral("builtin:demo");
  return applyPipeline(tok, templateSpec, collatorSpec, chosen);
}

bool Session::applyPipeline(const QString& tokenizerSpec, const QString& templateSpec, const QString& collatorSpec,
                            bool chosen) {
  const QString col = collatorSpec.isEmpty() ? QStringLiteral("default") : collatorSpec;
  std::unique_ptr<DatasetPipeline> pipeline;
  std::unique_ptr<FrameworkSource> framework;
  QString tpl = templateSpec;
  try {
    if (isFrameworkSpec(col.toStdString())) {
      framework = std::make_unique<FrameworkSource>(col.toStdString());
      tpl = QString::fromStdString(frameworkTemplateSpec(framework->spec(), tpl.toStdString()));
    } else {
      checkPresetAllowed(tokenizerSpec);
    }
    if (tokenizerSpec != noTokenizer()) pipeline = makePipeline(tokenizerSpec, tpl, col);
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  const long line = selectedLine(); // the same dataset row stays selected across modes
  const bool wasFramework = isFramework();
  // A framework spec sets Batch rows to its trainer's batch (core/frameworks/FrameworkBatchRows.h: the
  // micro_batch_size or per_device_train_batch_size it sets, else the framework's own default) when the
  // spec is new or that batch changed: a later edit of another option keeps the rows the user set.
  const std::optional<FrameworkBatchRows> rows = framework ? frameworkBatchRows(framework->spec()) : std::nullopt;
  const std::optional<FrameworkBatchRows> before = framework_ ? frameworkBatchRows(framework_->spec()) : std::nullopt;
  if (rows && (!framework_ || !before || before->rows != rows->rows)) {
    batchSize_ = int(std::clamp<int64_t>(rows->rows, 1, kMaxBatchRows));
    batchSizeSource_ =
        tr("%1 sets it: %2")
            .arg(QString::fromStdString(framework->spec().framework), QString::fromStdString(rows->source));
    if (rows->rows > kMaxBatchRows)
      Q_EMIT errorOccurred(
          tr("%1 sets %2 rows per batch; the app's batches hold at most %3 rows: shown in batches of %3")
              .arg(QString::fromStdString(framework->spec().framework))
              .arg(rows->rows)
              .arg(kMaxBatchRows));
  }
  if (!framework) batchSizeSource_.clear();
  // Another tokenizer while a dump is open is the user's choice for it: used even if it does not fit.
  if (source_ == Source::BatchDump && tokenizerSpec != tokenizerSpec_) dumpTokenizerChosen_ = true;
  pipeline_ = std::move(pipeline);
  tokenizerSpec_ = tokenizerSpec;
  tokenizerChosen_ = chosen;
  templateSpec_ = tpl;
  collatorSpec_ = col;
  framework_ = std::move(framework);
  preparedKey_.clear();
  if (!framework_) stage_ = Stage::Batch;
  if (framework_ && !wasFramework && reopensAsRows()) return reopenAsRows();
  if (framework_ && source_ == Source::Dataset && rawRows_.empty()) readRawRows();
  applyTokenizerDefault();
  judgeDumpTokenizer();
  const bool relisted = wasFramework != isFramework();
  if (relisted) selectLine(line);
  Q_EMIT pipelineChanged();
  if (relisted) Q_EMIT rowsChanged();
  rebuildBatch();
  return true;
}

bool Session::setTokenizer(const QString& spec) { return applyPipeline(spec, templateSpec_, collatorSpec_, true); }
bool Session::setTemplate(const QString& spec) {
  return applyPipeline(tokenizerSpec_, spec, collatorSpec_, tokenizerChosen_);
}

bool Session::setCollator(const QString& collatorSpec) {
  if (collatorSpec == collatorSpec_ && (pipeline_ || !hasTokenizer())) return true;
  bool framework = false;
  try {
    framework = isFrameworkSpec(collatorSpec.toStdString());
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  if (framework || isFramework() || !pipeline_)
    return applyPipeline(tokenizerSpec_, templateSpec_, collatorSpec, tokenizerChosen_);
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
  if (isFramework() && stage_ == Stage::Prepared) return framework_->preparedRowCount();
  if (isFramework() || preTokenized_) return int(rawRows_.size());
  return conversationCount();
}

int Session::conversationCount() const { return index_ ? int(index_->rowCount()) : int(conversations_.size()); }

Conversation Session::conversation(int row) const {
  return index_ ? index_->conversation(size_t(row)) : conversations_.at(size_t(row));
}

long Session::conversationLine(int row) const {
  if (row < 0 || row >= conversationCount()) return -1;
  return index_ ? index_->row(size_t(row)).line : conversations_[size_t(row)].sourceLine;
}

QString Session::datasetChangedOnDisk() const {
  return index_ ? QString::fromStdString(index_->changedOnDisk()) : QString();
}

BatchAroundRow Session::conversationBatch(const DatasetPipeline& pipeline, int row) const {
  return batchAroundRow(
      pipeline, conversationCount(), [this](int r) { return conversation(r); }, row, batchSize_);
}

QString Session::rowToolTip(int row) const {
  const QString title = rowTitle(row, 2000);
  return title.isEmpty() ? title : QStringLiteral("<p>%1</p>").arg(title.toHtmlEscaped()); // rich text wraps
}

QString Session::rowTitle(int row, int firstChars) const {
  if (row < 0 || row >= rowCount()) return {};
  if (source_ == Source::BatchDump) {
    // The counts the summary, lint and loss report: the dump as read with its tokenizer when decoded.
    const RowFacts f = rowFacts(batch_.batchSize() == dump_.batchSize() ? batch_ : dump_, row);
    return tr("batch row %1  (%2 real, %3 graded of %4)").arg(row).arg(f.real()).arg(f.gradedTotal()).arg(f.positions);
  }
  if (isFramework() && stage_ == Stage::Prepared)
    return QString::fromStdString(preparedRowTitle(framework_->prepared()->rows()[size_t(row)], row));
  if (isFramework() || preTokenized_) return rawRowTitle(row, firstChars);
  try {
    const Conversation c = conversation(row);
    return conversationTitle(c, c.rowIndex, firstChars);
  } catch (const std::exception& e) { // the file changed on disk: the list says why instead of a row
    return tr("row %1 \u00b7 %2").arg(row).arg(QString::fromUtf8(e.what()));
  }
}

QString Session::conversationTitle(const Conversation& c, long index, int firstChars) const {
  QString first;
  for (const auto& m : c.messages)
    if (m.role == "user") {
      first = QString::fromStdString(m.content);
      break;
    }
  if (first.isEmpty() && c.plainText) first = QString::fromStdString(c.plainPrompt);
  first = first.simplified();
  if (first.size() > firstChars) first = first.left(firstChars - 3) + QStringLiteral("...");
  // Where a contributor finds the row: its file line (a JSON list: its index there too), which the
  // row number stops matching after an unreadable line.
  QString where = c.sourceLine >= 0 ? tr("line %1").arg(c.sourceLine) : tr("row %1").arg(index);
  if (c.sourceItem >= 0) where = tr("item %1, %2").arg(c.sourceItem).arg(where);
  return tr("%1 \u00b7 %2  (%3 msgs)").arg(where, first).arg(c.messages.size());
}

void Session::selectRow(int row) {
  if (row < 0 || row >= rowCount() || row == selected_) return;
  selected_ = row;
  rebuildBatch();
}

void Session::setBatchSize(int rows) {
  rows = std::clamp(rows, 1, kMaxBatchRows);
  if (rows == batchSize_) return;
  batchSize_ = rows;
  batchSizeSource_.clear(); // the user's choice now
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

std::shared_ptr<const Tokenizer> Session::tokenizerPtr() const {
  if (!hasTokenizer() || !pipeline_) return nullptr;
  return pipeline_->encoder().tokenizerPtr();
}

QString Session::tokenText(int64_t id) const {
  const std::shared_ptr<const Tokenizer> tok = tokenizerPtr();
  if (!tok) return QString::number(id); // no tokenizer: the ids are what there is to show
  // A dump's ids are decoded only with a tokenizer that fits them or was chosen for it.
  if (id < 0 || id >= tok->vocabSize() || needsDumpTokenizer()) return QStringLiteral("#%1").arg(id);
  return QString::fromStdString(tok->displayText(int32_t(id)));
}

Batch Session::collateWith(const QString& collatorSpec, int* batchRow) const {
  if (batchRow) *batchRow = 0;
  if (source_ == Source::BatchDump) {
    if (batchRow) *batchRow = batchRow_;
    return dump_; // a dump is what it is: compare against itself (or a preset via the dataset)
  }
  if (selected_ < 0) return {};
  if (isFramework() || preTokenized_ || isFrameworkSpec(collatorSpec.toStdString()))
    return collateFrameworkWith(collatorSpec, batchRow);
  if (!pipeline_) return {};
  DatasetPipeline other(*pipeline_, parseCollatorSpec(collatorSpec.toStdString()));
  BatchAroundRow around = conversationBatch(other, selected_);
  if (batchRow) *batchRow = around.batchRow;
  return std::move(around.batch);
}

void Session::setExampleLosses(const ExampleLosses& losses) {
  if (losses == exampleLosses_) return;
  exampleLosses_ = losses;
  Q_EMIT exampleLossesChanged();
}

LintContext Session::lintContext() const {
  LintContext ctx;
  ctx.maxFindings = 1000;                           // lint's default --max-findings, so the lists match
  ctx.attnImplementation = attnName_.toStdString(); // as `lint --attn-implementation`
  // No tokenizer (a framework's pre-tokenized rows shown as ids): the rules that need none run.
  if (!pipeline_ || !hasTokenizer()) return ctx;
  if (needsDumpTokenizer()) {
    ctx.render.variables = templateVariables_;
    return ctx;
  }
  ctx.tokenizer = pipeline_->encoder().tokenizerPtr();
  ctx.chatTemplate = pipeline_->encoder().templatePtr();
  // The template the framework rendered with (Axolotl's chat_template), as `lint --collator SPEC`.
  if (isFramework() && batch_.framework) ctx.chatTemplate = templateJudged(*batch_.framework, ctx.chatTemplate);
  ctx.render = pipeline_->renderOptions();
  // A framework's batch is judged as `lint --collator SPEC` judges it: no preset collator, the
  // framework rules reading what its run recorded.
  if (!isBatchDump() && !isFramework()) ctx.collator = pipeline_->collator().spec();
  return ctx;
}

void Session::rebuildBatch() {
  batch_ = Batch();
  tokenized_.reset();
  run_.reset();
  batchRow_ = 0;
  preparedRow_ = -1;
  if (source_ == Source::Dataset && (isFramework() || preTokenized_)) return rebuildFrameworkBatch();
  if (!pipeline_ || selected_ < 0) {
    position_ = -1;
    Q_EMIT batchChanged();
    return;
  }
  try {
    if (source_ == Source::BatchDump) {
      batch_ = dump_;
      batchRow_ = selected_;
      if (decodesDump()) readDump(batch_, lintContext());
    } else {
      BatchAroundRow around = conversationBatch(*pipeline_, selected_);
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
