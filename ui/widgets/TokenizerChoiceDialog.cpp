// The dump's tokenizer question: candidates judged by core (rankTokenizers) off the UI thread.
#include "ui/widgets/TokenizerChoiceDialog.h"
#include "core/tokenizer/TokenizerCache.h"
#include "ui/shell/WorkerPool.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>

namespace maskscope {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
} // namespace

std::vector<TokenizerCandidate> TokenizerChoiceDialog::appCandidates(const QStringList& recent) {
  std::vector<TokenizerCandidate> out;
  for (const QString& r : recent)
    out.push_back({r.toStdString(), tokenizerDisplayName(r.toStdString()), "recently used", {}, {}});
  for (TokenizerCandidate& c : defaultTokenizerCandidates()) out.push_back(std::move(c));
  return out;
}

TokenizerChoiceDialog::TokenizerChoiceDialog(std::shared_ptr<const Batch> dump, const QString& dumpName,
                                             const QString& current, const TokenizerFit& fit,
                                             std::vector<TokenizerCandidate> candidates, const RenderOptions& variables,
                                             QWidget* parent)
    : QDialog(parent), cancelled_(std::make_shared<std::atomic<bool>>(false)) {
  setObjectName(QStringLiteral("tokenizerChoiceDialog"));
  setWindowTitle(tr("Which tokenizer made %1?").arg(dumpName));
  auto* layout = new QVBoxLayout(this);
  text_ = new QLabel(this);
  text_->setWordWrap(true);
  text_->setTextFormat(Qt::PlainText);
  // Asked again from File > Which tokenizer (the one in use may fit): says which it is and how it fits.
  text_->setText((fit.fits ? tr("%1 holds input ids up to %2. %3 is in use for it: %4.\n\nThe tokenizers on this "
                                "machine, those whose special tokens open the dump's rows first:")
                           : tr("%1 holds input ids up to %2. %3 cannot have made it: %4.\n\nUntil you choose, the "
                                "views show the ids (#%2) and lint runs without a tokenizer, as `maskscope lint %1` "
                                "does without --tokenizer. The tokenizers on this machine, those whose special "
                                "tokens open the dump's rows first:"))
                     .arg(dumpName)
                     .arg(fit.maxId)
                     .arg(q(tokenizerDisplayName(current.toStdString())))
                     .arg(q(fit.describe())));
  layout->addWidget(text_);
  list_ = new QListWidget(this);
  list_->setWordWrap(true); // each candidate's verdict and evidence whole, not cut at the dialog's edge
  list_->addItem(tr("Looking at %1 tokenizers\u2026").arg(candidates.size()));
  layout->addWidget(list_, 1);
  auto* buttons = new QDialogButtonBox(this);
  useButton_ = buttons->addButton(tr("Use"), QDialogButtonBox::AcceptRole);
  useButton_->setEnabled(false);
  auto* other = buttons->addButton(tr("Other file or folder\u2026"), QDialogButtonBox::ActionRole);
  buttons->addButton(tr("Show ids only"), QDialogButtonBox::RejectRole);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    const int row = list_->currentRow();
    if (ranking_ || row < 0 || size_t(row) >= ranked_.size()) return;
    chosen_ = q(ranked_[size_t(row)].spec);
    accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(other, &QPushButton::clicked, this, [this] {
    const QString spec = QFileDialog::getOpenFileName(this, tr("Tokenizer"), {},
                                                      tr("Tokenizers (tokenizer.json tokenizer.model *.json *.model)"));
    if (spec.isEmpty()) return;
    chosen_ = spec;
    accept();
  });
  connect(list_, &QListWidget::currentRowChanged, this, &TokenizerChoiceDialog::updateButton);
  connect(list_, &QListWidget::itemDoubleClicked, useButton_, &QPushButton::click);
  watcher_ = new QFutureWatcher<std::vector<RankedTokenizer>>(this);
  connect(watcher_, &QFutureWatcherBase::finished, this, [this] {
    for (const RankedTokenizer& r : watcher_->result()) {
      ranked_.push_back(r.candidate);
      evidence_.push_back(r.evidence);
    }
    ranking_ = false;
    showRanked();
  });
  auto stop = cancelled_;
  watcher_->setFuture(QtConcurrent::run(workerPool(), [dump, candidates = std::move(candidates), variables, stop] {
    return rankTokenizersByEvidence(*dump, candidates, variables, [stop] { return stop->load(); });
  }));
  resize(640, 420);
}

TokenizerChoiceDialog::~TokenizerChoiceDialog() {
  cancelled_->store(true); // the worker stops between tokenizers; its result goes nowhere
  watcher_->disconnect(this);
  watcher_->waitForFinished();
}

void TokenizerChoiceDialog::showRanked() {
  list_->clear();
  int first = -1;
  for (size_t i = 0; i < ranked_.size(); ++i) {
    const TokenizerCandidate& c = ranked_[i];
    // A fitting tokenizer says what supports it: a vocabulary large enough for the ids is no evidence.
    const QString line = QStringLiteral("%1 (%2): %3%4%5")
                             .arg(q(c.label), q(c.origin))
                             .arg(supported(i) ? tr("fits, and its special tokens open the rows")
                                  : c.fit.fits ? tr("fits by size only")
                                               : tr("does not fit"))
                             .arg(c.loadError.empty() && c.fit.vocabSize > 0
                                      ? tr(", %1 tokens; %2").arg(c.fit.vocabSize).arg(q(c.fit.describe()))
                                      : QStringLiteral("; ") + q(c.fit.describe()))
                             .arg(c.fit.fits ? QStringLiteral("; ") + q(evidence_[i].describe()) : QString());
    auto* item = new QListWidgetItem(line, list_);
    item->setToolTip(q(c.spec) + QStringLiteral("\n") + line);
    item->setData(Qt::UserRole, q(c.spec));
    if (!c.fit.fits) item->setForeground(palette().placeholderText());
    // Pre-selected only where the evidence supports it (ranked first among those that fit).
    if (supported(i) && first < 0) first = int(i);
  }
  if (ranked_.empty()) list_->addItem(tr("No tokenizer found: use \"Other file or folder\u2026\"."));
  if (!ranked_.empty() && first < 0)
    text_->setText(text_->text() +
                   tr("\n\nNone is pre-selected: no tokenizer's special tokens open the dump's rows, "
                      "so nothing here says which one made it. Choose one you know, or Show ids only."));
  list_->setCurrentRow(first);
  updateButton();
}

void TokenizerChoiceDialog::updateButton() {
  const int row = list_->currentRow();
  const bool valid = !ranking_ && row >= 0 && size_t(row) < ranked_.size();
  useButton_->setEnabled(valid);
  if (!valid) return;
  const TokenizerCandidate& c = ranked_[size_t(row)];
  // Honoured when chosen, but said as what it is: a tokenizer that cannot have made these ids.
  useButton_->setText(c.fit.fits ? tr("Use %1").arg(q(c.label)) : tr("Use %1 anyway").arg(q(c.label)));
}

QString TokenizerChoiceDialog::explanationText() const { return text_->text(); }

bool TokenizerChoiceDialog::choose(const QString& spec) {
  for (size_t i = 0; i < ranked_.size(); ++i)
    if (q(ranked_[i].spec) == spec) {
      list_->setCurrentRow(int(i));
      useButton_->click();
      return true;
    }
  return false;
}

} // namespace maskscope
