// Compare mode: two collators on one row.
#include "ui/views/compare/CompareView.h"
#include "core/collate/CollatorSpec.h"
#include "core/forward/LossPlan.h"
#include "ui/model/ModelRunner.h"
#include "ui/shell/Session.h"
#include "ui/shell/WorkerPool.h"
#include "ui/views/grid/AttentionGridCanvas.h"
#include "ui/views/loss/LossView.h"
#include "ui/views/strip/TokenStripView.h"
#include "ui/widgets/Sizes.h"

#include <QComboBox>
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

// Attention cells (lower triangle of the common square) whose state differs between two rows.
int64_t countDifferingCells(const GridSource& a, const GridSource& b) {
  const int64_t n = std::min(a.size(), b.size());
  int64_t count = 0;
  for (int64_t q = 0; q < n; ++q)
    for (int64_t k = 0; k <= q; ++k) count += a.state(q, k) != b.state(q, k);
  return count;
}
} // namespace

int CompareView::asyncCellThreshold() { return gAsyncCellThreshold; }
void CompareView::setAsyncCellThreshold(int positions) { gAsyncCellThreshold = positions; }

CompareView::CompareView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QGridLayout(this);
  auto makeBox = [this](const QString& initial) {
    auto* box = new QComboBox(this);
    for (const auto& p : collatorPresets())
      box->addItem(QString::fromStdString(p.name) + (p.buggy ? tr("  (bug)") : QString()),
                   QString::fromStdString(p.name));
    box->setCurrentIndex(std::max(0, box->findData(initial)));
    connect(box, &QComboBox::currentIndexChanged, this, &CompareView::recomputeIfVisible);
    return box;
  };
  boxA_ = makeBox(QStringLiteral("default"));
  boxB_ = makeBox(QStringLiteral("buggy-max-length-all-ones"));
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
}

void CompareView::recomputeIfVisible() {
  dirty_ = true;
  if (isVisible()) recompute();
}

void CompareView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (dirty_) recompute();
}

void CompareView::setCollators(const QString& a, const QString& b) {
  QSignalBlocker ba(boxA_), bb(boxB_);
  // A spec that is not a preset name (preset,key=value, key=value, a JSON file) gets an entry of its
  // own: the collator asked for is the one compared, never silently the first preset.
  auto select = [](QComboBox* box, const QString& spec) {
    if (box->findData(spec) < 0) box->addItem(spec, spec);
    box->setCurrentIndex(box->findData(spec));
  };
  select(boxA_, a);
  select(boxB_, b);
  recompute();
}

int CompareView::differingPositions() const { return stripA_->differenceCount(); }

// modelNll: the model's per-token NLL of the row ([t-1] predicts t, docs/cli.md); null: the loss view's
// example per-role losses (2.0 prompt, 1.0 reply, 0.05 pad), named as such.
QString CompareView::sideSummary(const Batch& b, int row, const std::vector<double>* modelNll) const {
  if (b.batchSize() == 0) return tr("no batch");
  IntGrid roles;
  try {
    roles = positionRoles(b);
  } catch (const std::exception&) {
  }
  std::vector<double> nll(size_t(b.length()), 0.0);
  for (int64_t t = 1; t < b.length(); ++t) {
    const int role = roles.sameShape(b.inputIds) ? int(roles.at(row, t)) : int(RoleUnknown);
    if (modelNll)
      nll[size_t(t)] = size_t(t - 1) < modelNll->size() ? (*modelNll)[size_t(t - 1)] : 0.0;
    else
      nll[size_t(t)] = role == RoleReply ? 1.0 : role == RolePad ? 0.05 : 2.0;
  }
  const LossBreakdown d = computeLossBreakdown(b, row, nll, roles);
  const QString source = modelNll                  ? tr("model loss (%1)").arg(modelLabel_)
                         : model_ && modelPending_ ? tr("model loss pending…; example loss")
                                                   : tr("example loss");
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
  if (session_->hasBatch() && !session_->isBatchDump()) {
    try {
      a_ = session_->collateWith(boxA_->currentData().toString(), &rowA_);
      b_ = session_->collateWith(boxB_->currentData().toString(), &rowB_);
    } catch (const std::exception& e) {
      diff_->setText(tr("Cannot compare: %1").arg(QString::fromUtf8(e.what())));
    }
  } else if (session_->isBatchDump()) {
    diff_->setText(tr("Compare needs a dataset: a batch dump is shown exactly as given."));
  }
  stripA_->setBatchOverride(&a_, rowA_);
  stripB_->setBatchOverride(&b_, rowB_);
  stripA_->setCompareBatch(&b_, rowB_);
  stripB_->setCompareBatch(&a_, rowA_);
  gridA_->setBatchOverride(&a_, rowA_);
  gridB_->setBatchOverride(&b_, rowB_);
  // The diff overlay: each grid tints the cells whose state differs from the other's.
  gridA_->setDiffSource(&gridB_->gridSource());
  gridB_->setDiffSource(&gridA_->gridSource());
  summaryA_->setText(sideSummary(a_, rowA_, nullptr));
  summaryB_->setText(sideSummary(b_, rowB_, nullptr));
  // Cells that differ, over the common square: O(T^2) time (O(T) memory, from segment ids), so long
  // rows are counted in a worker on copies of both rows' segment ids.
  const quint64 gen = ++generation_;
  const int64_t n = std::min(gridA_->gridSize(), gridB_->gridSize());
  if (n > gAsyncCellThreshold) {
    differingCells_ = -1;
    auto pair = std::make_shared<std::pair<GridSource, GridSource>>(gridA_->gridSource(), gridB_->gridSource());
    pair->first.probs = pair->second.probs = nullptr; // the worker reads segment ids only
    pair->first.diff = pair->second.diff = nullptr;
    std::shared_ptr<const std::pair<GridSource, GridSource>> sources = pair;
    auto* watcher = new QFutureWatcher<int64_t>(this);
    connect(watcher, &QFutureWatcher<int64_t>::finished, this, [this, watcher, gen] {
      watcher->deleteLater();
      if (gen != generation_) return;
      differingCells_ = watcher->result();
      if (a_.batchSize() && b_.batchSize()) diff_->setText(summaryText());
    });
    watcher->setFuture(
        QtConcurrent::run(workerPool(), [sources] { return countDifferingCells(sources->first, sources->second); }));
  } else {
    differingCells_ = countDifferingCells(gridA_->gridSource(), gridB_->gridSource());
  }
  if (a_.batchSize() && b_.batchSize()) diff_->setText(summaryText());
  startModelLosses();
}

QString CompareView::summaryText() const {
  const QString cells = differingCells_ < 0
                            ? tr("counting the attention cells that differ\u2026")
                            : tr("%1 attention cells differ (tinted yellow in both grids)").arg(differingCells_);
  return tr("%1 positions differ in label, attention or position id (outlined, \u2260); %2%3.")
      .arg(differingPositions())
      .arg(cells)
      .arg(a_.length() != b_.length()
               ? tr("; the rows have different lengths (%1 vs %2)").arg(a_.length()).arg(b_.length())
               : QString());
}

} // namespace maskscope
