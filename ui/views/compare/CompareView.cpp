// Compare mode: two collators on one row.
#include "ui/views/compare/CompareView.h"
#include "core/collate/CollatorSpec.h"
#include "core/forward/LossPlan.h"
#include "core/frameworks/Framework.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/mask/RowComparison.h"
#include "ui/model/ModelRunner.h"
#include "ui/shell/Session.h"
#include "ui/shell/WorkerPool.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/loss/LossView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/FrameworkSpecEdit.h"
#include "ui/widgets/Sizes.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <memory>
#include <optional>

namespace maskscope {

namespace {
int gAsyncCellThreshold = 2048;
const QString kSessionCollator = QStringLiteral("@toolbar"); // the lists' entry for the session's collator
const QString kOpenFile = QStringLiteral("@file");           // the lists' entry that asks for a file

} // namespace

int CompareView::asyncCellThreshold() { return gAsyncCellThreshold; }
void CompareView::setAsyncCellThreshold(int positions) { gAsyncCellThreshold = positions; }

CompareView::CompareView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QGridLayout(this);
  auto makeBox = [this](const QString& initial) {
    auto* box = new QComboBox(this);
    // First: the collator the toolbar builds the batch with (a preset, or a framework spec or config),
    // so compare starts from the batch on screen, never silently from another collator.
    box->addItem(QString(), kSessionCollator);
    for (const auto& p : collatorPresets())
      box->addItem(QString::fromStdString(p.name) + (p.buggy ? tr("  (bug)") : QString()),
                   QString::fromStdString(p.name));
    // Every framework of the build, at its defaults (its options: a spec or config file, below).
    box->insertSeparator(box->count());
    for (const FrameworkDefinition& d : frameworkDefinitions())
      box->addItem(tr("framework: %1 (defaults)").arg(QString::fromStdString(d.info.title)),
                   frameworkSpecFor(QString::fromStdString(d.info.name)));
    box->addItem(tr("Collator, framework spec or config file\u2026"), kOpenFile);
    box->setCurrentIndex(std::max(0, box->findData(initial)));
    connect(box, &QComboBox::activated, this, [this, box](int index) {
      if (box->itemData(index).toString() == kOpenFile) chooseFile(box);
    });
    connect(box, &QComboBox::currentIndexChanged, this, [this, box](int index) {
      if (box->itemData(index).toString() == kOpenFile) return; // the file chosen (activated) decides
      (box == boxA_ ? lastA_ : lastB_) = index;
      recomputeIfVisible();
    });
    return box;
  };
  boxA_ = makeBox(kSessionCollator);
  boxB_ = makeBox(QStringLiteral("buggy-max-length-all-ones"));
  lastA_ = boxA_->currentIndex();
  lastB_ = boxB_->currentIndex();
  summaryA_ = new QLabel(this);
  summaryB_ = new QLabel(this);
  summaryA_->setWordWrap(true);
  summaryB_->setWordWrap(true);
  diff_ = new QLabel(this);
  diff_->setWordWrap(true);
  stripA_ = new TokenStripView(session_, this);
  stripB_ = new TokenStripView(session_, this);
  gridA_ = new AttentionGridCanvas(session_, this);
  gridB_ = new AttentionGridCanvas(session_, this);
  gridA_->setFoldsPads(false); // the two grids show aligned cells: both whole
  gridB_->setFoldsPads(false);
  // Docked at the bottom of a 1024 x 768 screen the panel scrolls rather than squeezing the grids.
  gridA_->setMinimumHeight(kLeastCanvasHeight);
  gridB_->setMinimumHeight(kLeastCanvasHeight);
  layout->addWidget(new QLabel(tr("<b>A</b>"), this), 0, 0);
  layout->addWidget(boxA_, 0, 1);
  layout->addWidget(new QLabel(tr("<b>B</b>"), this), 0, 2);
  layout->addWidget(boxB_, 0, 3);
  layout->addWidget(summaryA_, 1, 0, 1, 2);
  layout->addWidget(summaryB_, 1, 2, 1, 2);
  layout->addWidget(stripA_, 2, 0, 1, 2);
  layout->addWidget(stripB_, 2, 2, 1, 2);
  layout->addWidget(gridA_, 3, 0, 1, 2);
  layout->addWidget(gridB_, 3, 2, 1, 2);
  layout->addWidget(diff_, 4, 0, 1, 4);
  layout->setRowStretch(2, 2);
  layout->setRowStretch(3, 3);
  layout->setColumnStretch(1, 1);
  layout->setColumnStretch(3, 1);
  // Two extra collations and a cell diff per batch: only while the panel is on screen.
  connect(session_, &Session::batchChanged, this, &CompareView::recomputeIfVisible);
  connect(session_, &Session::exampleLossesChanged, this, &CompareView::recomputeIfVisible);
  connect(session_, &Session::pipelineChanged, this, &CompareView::nameSessionCollator);
  nameSessionCollator();
}

// "toolbar: axolotl 0.18 ... (chat_template=chatml)" or "toolbar: default": the first entry of both lists.
void CompareView::nameSessionCollator() {
  const FrameworkSpec* fw = session_->frameworkSpec();
  QString what = fw ? QString::fromStdString(fw->describe()) : session_->collatorSpec();
  if (what.size() > 60) what = what.left(57) + QStringLiteral("...");
  for (QComboBox* box : {boxA_, boxB_}) {
    box->setItemText(0, tr("toolbar: %1").arg(what));
    box->setItemData(0, tr("The collator the toolbar builds the batch with: %1").arg(what), Qt::ToolTipRole);
  }
}

QString CompareView::specOf(const QComboBox* box) const {
  const QString spec = box->currentData().toString();
  return spec == kSessionCollator ? session_->collatorSpec() : spec;
}

void CompareView::recomputeIfVisible() {
  dirty_ = true;
  if (isVisible()) recompute();
}

void CompareView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (dirty_) recompute();
}

// A spec that is not in the list (preset,key=value, key=value, a JSON file, a framework spec or
// config file) gets an entry of its own, above the file entry: the collator asked for is the one
// compared, never silently the first preset.
void CompareView::selectSpec(QComboBox* box, const QString& spec) {
  if (box->findData(spec) < 0) {
    const QFileInfo file(spec);
    box->insertItem(box->findData(kOpenFile), file.exists() ? file.fileName() : spec, spec);
    box->setItemData(box->findData(spec), spec, Qt::ToolTipRole);
  }
  box->setCurrentIndex(box->findData(spec));
}

void CompareView::setCollators(const QString& a, const QString& b) {
  QSignalBlocker ba(boxA_), bb(boxB_);
  selectSpec(boxA_, a);
  selectSpec(boxB_, b);
  lastA_ = boxA_->currentIndex();
  lastB_ = boxB_->currentIndex();
  recompute();
}

// The file entry: a collator JSON, a framework spec or a framework's config (axolotl.yml, ...); its
// spec is checked as the toolbar checks it, and a refused or cancelled file leaves the side as it was.
void CompareView::chooseFile(QComboBox* box) {
  int& last = box == boxA_ ? lastA_ : lastB_;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("A collator JSON, a framework spec or a framework's config"), {},
                                   tr("Collator or framework configs (*.json *.yml *.yaml);;All files (*)"));
  QString error;
  if (!path.isEmpty()) {
    try {
      if (isFrameworkSpec(path.toStdString()))
        parseFrameworkSpec(path.toStdString());
      else
        parseCollatorSpec(path.toStdString());
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
  }
  QSignalBlocker block(box);
  if (path.isEmpty() || !error.isEmpty()) {
    box->setCurrentIndex(last);
    if (!error.isEmpty()) diff_->setText(tr("Cannot compare %1: %2").arg(path, error));
    return;
  }
  selectSpec(box, path);
  last = box->currentIndex();
  recomputeIfVisible();
}

int CompareView::differingPositions() const { return int(comparison_.positions); }

// modelNll: the model's per-token NLL of the row ([t-1] predicts t, docs/cli.md); null: the session's
// example per-token losses (the loss view's), named as such with their values.
QString CompareView::sideSummary(const Batch& b, int row, const std::vector<double>* modelNll) const {
  if (b.batchSize() == 0) return tr("no batch");
  IntGrid roles;
  try {
    roles = positionRoles(b);
  } catch (const std::exception&) {
  }
  const ExampleLosses& e = session_->exampleLosses();
  std::vector<double> nll = exampleNll(b, row, roles, e);
  for (int64_t t = 1; t < b.length() && modelNll; ++t)
    nll[size_t(t)] = size_t(t - 1) < modelNll->size() ? (*modelNll)[size_t(t - 1)] : 0.0;
  const LossBreakdown d = computeLossBreakdown(b, row, nll, roles);
  const QString example = tr("example loss (per token: prompt %1, reply %2, pad %3)")
                              .arg(e.prompt, 0, 'f', 2)
                              .arg(e.reply, 0, 'f', 2)
                              .arg(e.pad, 0, 'f', 2);
  const QString source = modelNll                  ? tr("model loss (%1)").arg(modelLabel_)
                         : model_ && modelPending_ ? tr("model loss pending\u2026; %1").arg(example)
                                                   : example;
  return tr("%1 positions; graded: %2 reply, %3 prompt, %4 pad; %5 %6, reply share %7 %")
      .arg(b.length())
      .arg(d.graded[RoleReply])
      .arg(d.graded[RolePrompt])
      .arg(d.graded[RolePad])
      .arg(source)
      .arg(d.asGiven(), 0, 'f', 3)
      .arg(100 * d.lossShare(RoleReply), 0, 'f', 1);
}

QString CompareView::sideSummaryText(int side) const { return (side == 0 ? summaryA_ : summaryB_)->text(); }

void CompareView::setModel(std::shared_ptr<ForwardModel> model, std::shared_ptr<std::mutex> lock,
                           const QString& label) {
  model_ = std::move(model);
  modelLock_ = std::move(lock);
  modelLabel_ = label;
  recomputeIfVisible();
}

// Both sides' rows through the loaded model in a worker (each row alone: a batch of one); a result
// for an older recompute is dropped.
void CompareView::startModelLosses() {
  modelPending_ = false;
  if (!model_ || !a_.batchSize() || !b_.batchSize()) return;
  modelPending_ = true;
  const quint64 gen = generation_;
  auto rows = std::make_shared<std::pair<Batch, Batch>>(batchRow(a_, rowA_), batchRow(b_, rowB_));
  auto model = model_;
  auto lock = modelLock_;
  using Result = std::pair<std::vector<double>, std::vector<double>>;
  auto* watcher = new QFutureWatcher<std::optional<Result>>(this);
  connect(watcher, &QFutureWatcher<std::optional<Result>>::finished, this, [this, watcher, gen] {
    watcher->deleteLater();
    if (gen != generation_) return;
    modelPending_ = false;
    const std::optional<Result> r = watcher->result();
    summaryA_->setText(sideSummary(a_, rowA_, r ? &r->first : nullptr));
    summaryB_->setText(sideSummary(b_, rowB_, r ? &r->second : nullptr));
  });
  watcher->setFuture(QtConcurrent::run(workerPool(), [rows, model, lock]() -> std::optional<Result> {
    std::lock_guard<std::mutex> hold(*lock);
    try {
      auto nllOf = [&](const Batch& b) {
        ForwardInputs in{b.inputIds, b.attentionMask, b.positionIds, b.labels};
        return model->forward(in, {}, false, {}).perTokenNll.at(0);
      };
      return Result{nllOf(rows->first), nllOf(rows->second)};
    } catch (const std::exception&) {
      return std::nullopt; // the sides keep the example losses, named as such
    }
  }));
}

void CompareView::recompute() {
  dirty_ = false;
  a_ = Batch();
  b_ = Batch();
  differingCells_ = 0;
  cells_ = CellComparison();
  if (session_->hasBatch() && !session_->isBatchDump()) {
    try {
      a_ = session_->collateWith(specOf(boxA_), &rowA_);
      b_ = session_->collateWith(specOf(boxB_), &rowB_);
    } catch (const std::exception& e) {
      diff_->setText(tr("Cannot compare: %1").arg(QString::fromUtf8(e.what())));
    }
  } else if (session_->isBatchDump()) {
    diff_->setText(tr("Compare needs a dataset: a batch dump holds the batch of one collator only."));
  }
  stripA_->setBatchOverride(&a_, rowA_);
  stripB_->setBatchOverride(&b_, rowB_);
  gridA_->setBatchOverride(&a_, rowA_);
  gridB_->setBatchOverride(&b_, rowB_);
  // One comparison, aligned at the rows' first real tokens (core/mask/RowComparison.h): the strips'
  // outlines, the grids' tint and every count of the summary come from it.
  comparison_ = compareRows(a_, rowA_, b_, rowB_);
  stripA_->setDifferences(comparison_.flagsA);
  stripB_->setDifferences(comparison_.flagsB);
  gridA_->setDiffSource(&gridB_->gridSource(), comparison_.shift);
  gridB_->setDiffSource(&gridA_->gridSource(), -comparison_.shift);
  summaryA_->setText(sideSummary(a_, rowA_, nullptr));
  summaryB_->setText(sideSummary(b_, rowB_, nullptr));
  // Cells that differ, over the aligned lower triangle: O(T^2) time (O(T) memory, from segment ids), so
  // long rows are counted in a worker on copies of both rows' anatomy.
  const quint64 gen = ++generation_;
  const int64_t n = comparison_.common;
  const int64_t shift = comparison_.shift;
  if (n > gAsyncCellThreshold) {
    differingCells_ = -1;
    auto pair = std::make_shared<std::pair<RowAnatomy, RowAnatomy>>(gridA_->gridSource(), gridB_->gridSource());
    std::shared_ptr<const std::pair<RowAnatomy, RowAnatomy>> sources = pair;
    auto* watcher = new QFutureWatcher<CellComparison>(this);
    connect(watcher, &QFutureWatcher<CellComparison>::finished, this, [this, watcher, gen] {
      watcher->deleteLater();
      if (gen != generation_) return;
      cells_ = watcher->result();
      differingCells_ = cells_.differ;
      if (a_.batchSize() && b_.batchSize()) diff_->setText(summaryText());
    });
    watcher->setFuture(QtConcurrent::run(
        workerPool(), [sources, shift] { return compareCells(sources->first, sources->second, shift); }));
  } else {
    cells_ = compareCells(gridA_->gridSource(), gridB_->gridSource(), shift);
    differingCells_ = cells_.differ;
  }
  if (a_.batchSize() && b_.batchSize()) diff_->setText(summaryText());
  startModelLosses();
}

// Each count defined and shown apart; the alignment said on screen when the rows differ in length.
QString CompareView::summaryText() const {
  const RowComparison& c = comparison_;
  QString align;
  if (c.lengthA != c.lengthB || c.shift != 0)
    align = tr("A has %1 positions, B %2; aligned at their first real token (A's %3 = B's %4): %5 positions in both, "
               "%6 only in A, %7 only in B (not compared, not tinted). ")
                .arg(c.lengthA)
                .arg(c.lengthB)
                .arg(c.firstRealA)
                .arg(c.firstRealB)
                .arg(c.common)
                .arg(c.onlyA)
                .arg(c.onlyB);
  const QString positions =
      tr("Of the %1 aligned positions, %2 differ (outlined, \u2260): input ids at %3, labels at %4, attention bits "
         "at %5, position ids at %6.")
          .arg(c.common)
          .arg(c.positions)
          .arg(c.ids)
          .arg(c.labels)
          .arg(c.attention)
          .arg(c.positionIdsCompared ? QString::number(c.positionIds) : tr("- (not both given)"));
  // A pad filled with another id (pad_token=eos) at a position both rows mask: its own category.
  const QString pads = c.padIds == 0 ? QString()
                                     : tr(" Pad id differs at %1 pads (masked in both rows, not outlined); %2 real "
                                          "positions differ.")
                                           .arg(c.padIds)
                                           .arg(c.positions);
  const QString cells = differingCells_ < 0
                            ? tr(" Counting the attention cells that differ\u2026")
                            : tr(" Attention cells: %1 of the %2 aligned cells (key \u2264 query) differ, tinted "
                                 "yellow in both grids.")
                                  .arg(differingCells_)
                                  .arg(cells_.compared);
  return align + positions + pads + cells;
}

} // namespace maskscope
