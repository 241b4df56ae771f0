// Lint panel: findings list, explanation, jump to row/position.
#include "ui/views/lint/LintView.h"
#include "core/commands/BatchInputs.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/lint/FindingsTable.h"
#include "core/lint/Lint.h"
#include "ui/shell/Session.h"
#include "ui/shell/WorkerPool.h"
#include "ui/widgets/Palette.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QShowEvent>
#include <QSplitter>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <atomic>
#include <numeric>
#include <sstream>

namespace maskscope {

LintView::LintView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = bar_ = new QHBoxLayout;
  auto* batchButton = new QPushButton(tr("Lint this batch"), this);
  datasetButton_ = new QPushButton(tr("Lint the whole dataset"), this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 0);
  progress_->setVisible(false);
  summary_ = new QLabel(this);
  bar->addWidget(batchButton);
  bar->addWidget(datasetButton_);
  bar->addWidget(progress_);
  bar->addWidget(summary_, 1);
  bar->addStretch(); // keeps the buttons at their width while the summary has a line of its own
  layout->addLayout(bar);
  auto* split = new QSplitter(Qt::Horizontal, this);
  list_ = new QListWidget(split);
  // One line per finding, so that a 1024 x 768 window lists more than a handful: the list takes most
  // of the width, a message longer than it ends in "..." and is whole in its tooltip and, selected,
  // in the explanation beside it.
  list_->setWordWrap(false);
  list_->setTextElideMode(Qt::ElideRight);
  list_->setUniformItemSizes(true);
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // a row for the findings instead
  explanation_ = new QTextBrowser(split);
  split->addWidget(list_);
  split->addWidget(explanation_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);
  findings_ = split;
  watcher_ = new QFutureWatcher<LintReport>(this);
  connect(watcher_, &QFutureWatcher<LintReport>::finished, this, [this] {
    progress_->setVisible(false);
    datasetButton_->setEnabled(true);
    if (datasetRunKey_ != settingsKey()) {
      // Made for a file or settings no longer shown: drop it, lint what is shown now.
      staleNoteRow_ = session_->selectedRow();
      staleNote_ = tr("The dataset run was for the previous file or collator and was dropped. ");
      lintCurrentBatchAsync();
      return;
    }
    try {
      reportKey_ = datasetRunKey_;
      showReport(watcher_->result(), true);
    } catch (const std::exception& e) {
      setSummary(tr("Lint failed: %1").arg(QString::fromUtf8(e.what())));
    }
  });
  connect(batchButton, &QPushButton::clicked, this, &LintView::lintCurrentBatchAsync);
  connect(datasetButton_, &QPushButton::clicked, this, &LintView::lintDataset);
  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) { selectFinding(findingAtRow(row)); });
  // Row changes: one lint 150 ms after the last change, in a worker (switching rows quickly lints once).
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(150);
  connect(debounce_, &QTimer::timeout, this, &LintView::lintCurrentBatchAsync);
  connect(session_, &Session::batchChanged, this, &LintView::onBatchChanged);
  connect(session_, &Session::datasetChanged, this, &LintView::onSettingsChanged);
  connect(session_, &Session::pipelineChanged, this, &LintView::onSettingsChanged);
  lintCurrentBatch();
}

QString LintView::settingsKey() const {
  return QStringList{session_->datasetSpec(),
                     session_->tokenizerSpec(),
                     session_->templateSpec(),
                     session_->collatorSpec(),
                     QString::number(session_->batchSize()),
                     session_->needsDumpTokenizer() ? QStringLiteral("ids") : QString()}
      .join(QChar(0x1f));
}

bool LintView::isStale() const { return reportKey_ != settingsKey() || lintPending(); }

QString LintView::staleNote() const { return session_->selectedRow() == staleNoteRow_ ? staleNote_ : QString(); }

QString LintView::summaryText() const { return summary_->text(); }

// The summary line, whole in its tooltip too: compact mode may cut it at the dock's edge.
void LintView::setSummary(const QString& text) {
  summary_->setText(text);
  summary_->setToolTip(text);
}

void LintView::setCompact(bool on) {
  compact_ = on;
  // Folded, the panel is its summary line and three lines of findings (the explanation hides): the
  // dock shrinks to that, and grows back.
  explanation_->setVisible(!on);
  // Narrow margins: on a 1024 x 768 projector every line given here is taken from the grid.
  if (normalMargins_.isNull()) normalMargins_ = layout()->contentsMargins();
  layout()->setContentsMargins(on ? QMargins(4, 2, 4, 2) : normalMargins_);
  layout()->setSpacing(on ? 2 : -1);
  // The summary stays beside the two buttons (presenter mode places the teaching steps right of the
  // centre, so the bottom panels keep the window's width): a line more for the grid. It never widens
  // the panel (applySizePolicy: a longer note is cut at the dock's edge; its tooltip has it whole).
  resizeCompactList();
  applyQuiet();
  applySizePolicy();
}

void LintView::applySizePolicy() {
  // Compact or quiet, the summary never widens the panel (nor the window's least width): a longer
  // line is cut at the dock's edge, whole in its tooltip.
  summary_->setSizePolicy(compact_ || quiet_ ? QSizePolicy::Ignored : QSizePolicy::Preferred, QSizePolicy::Preferred);
  setSizePolicy(QSizePolicy::Preferred, compact_ || quiet_ ? QSizePolicy::Maximum : QSizePolicy::Preferred);
  updateGeometry();
}

// No findings: an empty list and "No findings" beside it took a fifth of a 1024 x 768 window from the
// strip and grid; the summary line says it instead.
void LintView::applyQuiet() {
  const bool on = empty_ && !compact_;
  if (on == quiet_) return;
  quiet_ = on;
  findings_->setVisible(!on);
  applySizePolicy();
  Q_EMIT quietChanged(on);
}

// Compact: the list is three lines of its type tall; otherwise it takes what the splitter gives.
void LintView::resizeCompactList() {
  const int threeLines = 3 * list_->fontMetrics().lineSpacing() + 2 * list_->frameWidth() + 4;
  list_->setFixedHeight(compact_ ? threeLines : QWIDGETSIZE_MAX);
  if (!compact_) list_->setMinimumHeight(0);
}

void LintView::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange && compact_) resizeCompactList(); // three lines of the new type
}

void LintView::onSettingsChanged() {
  if (!datasetRows_ || reportKey_ == settingsKey()) return;
  // The whole-dataset findings describe another file or collator: drop them, lint the batch shown.
  staleNoteRow_ = session_->selectedRow();
  staleNote_ = tr("Dataset findings dropped: the file or collator changed (lint the whole dataset again). ");
  datasetRows_ = false;
  if (isVisible())
    lintCurrentBatchAsync();
  else {
    dirty_ = true;
    setSummary(staleNote() + tr("Out of date: re-lints when shown."));
  }
}

void LintView::settleSummary() {
  if (lintPending() || watcher_->isRunning()) return;
  const bool current = reportKey_ == settingsKey() && reportRow_ == session_->selectedRow();
  setSummary(staleNote_ + (current || datasetRows_ ? QString() : tr("Out of date (another batch is shown). ")) +
             countsText());
}

// "dataset: 21 errors, 14 warnings, 0 infos (data: 21 errors, 12 warnings)": the data part is what
// a contributor fixes in the rows, the rest is the template, tokenizer or collator.
QString LintView::countsText() const {
  if (!datasetRows_ && !session_->hasBatch()) return tr("Nothing linted: no batch.");
  const LintSummary& s = report_.summary;
  QString text = tr("%1: %2 errors, %3 warnings, %4 infos")
                     .arg(datasetRows_ ? tr("dataset") : tr("this batch"))
                     .arg(s.errors)
                     .arg(s.warnings)
                     .arg(s.infos);
  if (s.dataErrors + s.dataWarnings > 0)
    text += tr(" (data: %1 errors, %2 warnings)").arg(s.dataErrors).arg(s.dataWarnings);
  return text;
}

bool LintView::lintPending() const { return pending_ > 0 || debounce_->isActive(); }

// An empty list is "no findings" only when lint judged the batch on screen: before (or while) it runs,
// or with no batch, the panel says so rather than passing a batch nobody linted.
QString LintView::noFindingsText() const {
  if (!session_->hasBatch()) return tr("Nothing linted: no batch.");
  if (isStale()) return tr("Not linted yet: this batch's findings are not known (Lint this batch).");
  return tr("No findings: this batch passes every rule that could run.");
}

void LintView::onBatchChanged() {
  if (datasetRows_ && reportKey_ != settingsKey()) onSettingsChanged(); // a file opened: batchChanged may come first
  if (datasetRows_ || jumping_) return;
  ++generation_; // whatever is in flight is for another batch now
  if (!isVisible()) {
    dirty_ = true;
    debounce_->stop();
    setSummary(staleNote() + tr("Out of date: re-lints when shown."));
    return;
  }
  debounce_->start();
  setSummary(staleNote() + tr("Not linted yet: this batch lints in a moment \u2026"));
  if (report_.findings.empty()) explanation_->setPlainText(noFindingsText());
}

void LintView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (dirty_ && !datasetRows_) {
    dirty_ = false;
    debounce_->start();
  }
}

LintView::~LintView() {
  if (watcher_->isRunning()) watcher_->waitForFinished();
}

namespace {
bool canLint(const Session& session) { return session.hasBatch() && (session.pipeline() || session.isFramework()); }

// The whole dataset through the framework, as `lint DATA --collator SPEC` does: one batch of every
// row, linted; the findings' batch rows mapped back to the dataset rows they came from.
LintReport lintFrameworkDataset(const BatchInputs& in, const LintContext& ctx) {
  Batch b = buildBatch(in);
  LintReport report = lintBatch(b, ctx);
  for (Finding& f : report.findings)
    if (f.row && size_t(*f.row) < b.sourceRows.size() && b.sourceRows[size_t(*f.row)] >= 0)
      f.row = b.sourceRows[size_t(*f.row)];
  return report;
}
} // namespace

void LintView::lintCurrentBatch() {
  ++generation_;
  debounce_->stop();
  dirty_ = false;
  reportRow_ = session_->selectedRow();
  reportKey_ = settingsKey();
  reportSourceRows_ = session_->hasBatch() ? session_->batch().sourceRows : std::vector<long>();
  if (!canLint(*session_)) {
    showReport(LintReport(), false);
    return;
  }
  try {
    showReport(lintBatch(session_->lintInput(), session_->lintContext()), false);
  } catch (const std::exception& e) {
    showReport(LintReport(), false);
    setSummary(tr("Lint failed: %1").arg(QString::fromUtf8(e.what())));
  }
}

void LintView::lintCurrentBatchAsync() {
  debounce_->stop();
  dirty_ = false;
  const quint64 gen = ++generation_;
  if (!canLint(*session_)) {
    reportRow_ = session_->selectedRow();
    reportKey_ = settingsKey();
    reportSourceRows_.clear();
    showReport(LintReport(), false);
    return;
  }
  struct Job {
    Batch batch;
    LintContext ctx;
  };
  auto job = std::make_shared<const Job>(Job{session_->lintInput(), session_->lintContext()});
  const int row = session_->selectedRow();
  const QString key = settingsKey();
  // One watcher per run: a stale run finishes into its own watcher and is dropped by generation.
  auto* watcher = new QFutureWatcher<LintReport>(this);
  ++pending_;
  connect(watcher, &QFutureWatcher<LintReport>::finished, this, [this, watcher, gen, row, job, key] {
    --pending_;
    watcher->deleteLater();
    if (gen != generation_ || datasetRows_) { // a newer batch, a jump or a dataset run
      settleSummary();                        // never left saying "Linting this batch ..."
      return;
    }
    reportRow_ = row;
    reportKey_ = key;
    reportSourceRows_ = job->batch.sourceRows;
    try {
      showReport(watcher->result(), false);
    } catch (const std::exception& e) {
      showReport(LintReport(), false);
      setSummary(tr("Lint failed: %1").arg(QString::fromUtf8(e.what())));
    }
  });
  setSummary(staleNote() + tr("Linting this batch \u2026"));
  watcher->setFuture(QtConcurrent::run(workerPool(), [job] { return lintBatch(job->batch, job->ctx); }));
}

void LintView::lintDataset() {
  if (session_->isBatchDump() || session_->datasetSpec().isEmpty()) return lintCurrentBatch();
  if (watcher_->isRunning()) return;
  ++generation_; // pending batch results would replace the dataset's
  debounce_->stop();
  if (session_->isFramework()) return lintFrameworkDatasetAsync();
  DatasetLintOptions opt;
  opt.pipeline.tokenizerSpec = session_->tokenizerSpec().toStdString();
  opt.pipeline.templateSpec = session_->templateSpec().toStdString();
  opt.pipeline.collatorSpec = session_->collatorSpec().toStdString();
  opt.microBatchSize = session_->batchSize();
  opt.threads = 1;      // keep a core for the UI
  opt.maxFindings = -1; // every finding, for the row filter and the findings export (the list shows kMaxListed)
  const std::string spec = session_->datasetSpec().toStdString();
  datasetRunKey_ = settingsKey();
  staleNote_.clear();
  progress_->setVisible(true);
  datasetButton_->setEnabled(false);
  setSummary(tr("Linting %1 ...").arg(session_->datasetSpec()));
  watcher_->setFuture(QtConcurrent::run(workerPool(), [spec, opt] { return maskscope::lintDataset(spec, opt); }));
}

void LintView::lintFrameworkDatasetAsync() {
  BatchInputs in;
  in.dataSpec = session_->datasetSpec().toStdString();
  in.collatorSpec = session_->collatorSpec().toStdString();
  in.tokenizerSpec = session_->hasTokenizer() ? session_->tokenizerSpec().toStdString() : std::string();
  in.templateSpec = session_->hasTokenizer() ? session_->templateSpec().toStdString() : std::string();
  in.lenientFramework = true; // what the framework would stop on is a finding
  LintContext ctx = session_->lintContext();
  ctx.maxFindings = -1; // every finding, as the preset dataset run keeps
  datasetRunKey_ = settingsKey();
  staleNote_.clear();
  progress_->setVisible(true);
  datasetButton_->setEnabled(false);
  setSummary(tr("Linting %1 through %2 ...")
                 .arg(session_->datasetSpec(), QString::fromStdString(session_->frameworkSpec()->framework)));
  watcher_->setFuture(QtConcurrent::run(workerPool(), [in, ctx] { return lintFrameworkDataset(in, ctx); }));
}

void LintView::showReport(LintReport report, bool datasetRows) {
  report_ = std::move(report);
  datasetRows_ = datasetRows;
  if (!datasetRows) locateBatchFindings();
  QSignalBlocker block(list_);
  list_->clear();
  // Errors first, then warnings, then infos, each in report order (stable): the order of the audit
  // page's rules, and an error is never scrolled past a settings warning.
  std::vector<int> order(report_.findings.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
    return int(report_.findings[size_t(a)].severity) > int(report_.findings[size_t(b)].severity);
  });
  listed_.clear();
  for (const int index : order) {
    const Finding& f = report_.findings[size_t(index)];
    if (list_->count() >= kMaxListed) {
      list_->addItem(tr("\u2026 %1 more: File > Export lint findings writes all of them")
                         .arg(report_.findings.size() - size_t(kMaxListed)));
      break;
    }
    // A dataset finding names the file line (the row number drifts after unreadable lines).
    QString where;
    const QString message = QString::fromStdString(f.message);
    if (f.item) where += tr("item %1, ").arg(*f.item);
    // A message that opens with its line ("line 7: ...") says it once.
    static const QRegularExpression opensWithLine(QStringLiteral("^line \\d+\\b"));
    const bool lineSaid = f.line && opensWithLine.match(message).captured() == QStringLiteral("line %1").arg(*f.line);
    if (f.line) {
      if (!lineSaid) where += tr("line %1").arg(*f.line);
    } else if (f.row) {
      where += tr("row %1").arg(*f.row);
    }
    if (f.position) where += (where.isEmpty() ? QString() : QStringLiteral(" ")) + tr("pos %1").arg(*f.position);
    const QString sev = QString::fromLatin1(severityName(f.severity));
    // Severity as a word and a glyph, not colour alone.
    const QString glyph = f.severity == Severity::Error     ? QStringLiteral("\u2716")
                          : f.severity == Severity::Warning ? QStringLiteral("\u26a0")
                                                            : QStringLiteral("\u2139");
    // A finding about the settings (template, tokenizer) has no place in the data: no empty brackets.
    const QString at = where.isEmpty() ? QString() : QStringLiteral("[%1]  ").arg(where);
    auto* item = new QListWidgetItem(
        QStringLiteral("%1 %2  %3  %4%5").arg(glyph, sev.toUpper(), QString::fromStdString(f.rule), at, message),
        list_);
    item->setToolTip(item->text());
    if (f.severity == Severity::Error) item->setForeground(palette::warningText());
    listed_.push_back(index);
  }
  const bool none = report_.findings.empty();
  setSummary(staleNote() + (none && !datasetRows_ ? noFindingsText() : countsText()));
  explanation_->setPlainText(none ? noFindingsText() : tr("Select a finding to see its rule explained."));
  empty_ = none;
  applyQuiet();
  Q_EMIT reportChanged();
}

// A batch report's findings name batch rows: give each the file line (and JSON-list item) of the
// dataset row it came from, through the batch's source rows, as a dataset run's findings have.
void LintView::locateBatchFindings() {
  if (session_->isBatchDump() || !session_->hasConversations()) return;
  for (Finding& f : report_.findings) {
    if (!f.row || f.line || *f.row < 0 || size_t(*f.row) >= reportSourceRows_.size()) continue;
    const long src = reportSourceRows_[size_t(*f.row)];
    if (src < 0 || src >= session_->rowCount()) continue;
    try {
      const Conversation c = session_->conversation(int(src)); // read back (cached: the batch's rows)
      if (c.sourceLine >= 0) f.line = c.sourceLine;
      if (c.sourceItem >= 0) f.item = c.sourceItem;
    } catch (const std::exception&) { // the file changed on disk: the session reports it
    }
  }
}

QString LintView::explanationText() const { return explanation_->toPlainText(); }

int LintView::findingAtRow(int row) const { return row >= 0 && row < int(listed_.size()) ? listed_[size_t(row)] : -1; }

int LintView::listRowOf(int index) const {
  const auto at = std::find(listed_.begin(), listed_.end(), index);
  return at == listed_.end() ? -1 : int(at - listed_.begin());
}

void LintView::selectFinding(int index) {
  const int row = listRowOf(index);
  if (row < 0) return;
  if (list_->currentRow() != row) {
    QSignalBlocker block(list_);
    list_->setCurrentRow(row);
  }
  const Finding& f = report_.findings[size_t(index)];
  const RuleInfo* info = findRule(f.rule);
  QString text = QString::fromStdString(f.rule) + QStringLiteral("\n") + QString::fromStdString(f.message) +
                 QStringLiteral("\n\n");
  if (info)
    text += QString::fromUtf8(info->title.data(), qsizetype(info->title.size())) + QStringLiteral("\n\n") +
            QString::fromUtf8(info->explanation.data(), qsizetype(info->explanation.size()));
  explanation_->setPlainText(text);
  // Jumping re-collates the row's batch; the findings stay those of the batch they came from, and
  // a lint still in flight (or debounced) would replace the list being navigated: drop it.
  ++generation_;
  debounce_->stop();
  jumping_ = true;
  if (f.row) {
    int target = int(*f.row);
    if (!datasetRows_ && !session_->isBatchDump()) {
      // A batch row: map it back to its dataset row through the batch the findings came from.
      const auto& src = reportSourceRows_;
      if (size_t(target) < src.size() && src[size_t(target)] >= 0) target = int(src[size_t(target)]);
    }
    session_->selectDatasetRow(target); // the prepared row holding it when the list shows prepared rows
  }
  if (f.position) session_->selectPosition(int(*f.position));
  jumping_ = false;
}

QList<QPair<QString, int>> LintView::rulesWithRows() const {
  QList<QPair<QString, int>> out;
  for (const RuleInfo& r : allRules()) {
    const QString name = QString::fromUtf8(r.name.data(), qsizetype(r.name.size()));
    const int rows = int(rowsWithFindings(name).size());
    if (rows > 0) out.append({name, rows});
  }
  return out;
}

bool LintView::exportFindings(const QString& path, QString* error) const {
  try {
    const FindingsFormat format = findingsFormatOf(path.toStdString());
    std::ostringstream table;
    FindingsTableWriter writer(table, format);
    for (const Finding& f : report_.findings) writer.write(f);
    QSaveFile out(path);
    const std::string text = table.str();
    if (!out.open(QIODevice::WriteOnly) || out.write(text.data(), qint64(text.size())) != qint64(text.size()) ||
        !out.commit()) {
      if (error) *error = tr("could not write %1").arg(path);
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

QList<int> LintView::rowsWithFindings(const QString& rule) const {
  QList<int> rows;
  for (const Finding& f : report_.findings)
    if (f.row && (rule.isEmpty() || QString::fromStdString(f.rule) == rule) && !rows.contains(int(*f.row)))
      rows << int(*f.row);
  return rows;
}

void LintView::render(QPainter& p, QRect area) const {
  p.fillRect(area, palette().base());
  QFont bold = font();
  bold.setBold(true);
  const int lh = QFontMetrics(font()).height() + 6;
  int y = area.top() + 6;
  p.setFont(bold);
  p.setPen(palette().text().color());
  p.drawText(QRect(area.left() + 8, y, area.width() - 16, lh), Qt::AlignLeft, summary_->text());
  y += lh + 4;
  if (report_.findings.empty()) {
    p.setFont(font());
    p.drawText(QRect(area.left() + 8, y, area.width() - 16, lh), Qt::AlignLeft, noFindingsText());
    return;
  }
  const int listW = area.width() * 3 / 5;
  for (const int index : listed_) { // the list's order: errors first
    const Finding& f = report_.findings[size_t(index)];
    if (y + lh > area.bottom() - 4) break;
    const QString sev = QString::fromLatin1(severityName(f.severity)).toUpper();
    p.setFont(bold);
    p.setPen(f.severity == Severity::Error ? palette::warningText() : palette().text().color());
    p.drawText(QRect(area.left() + 8, y, 90, lh), Qt::AlignLeft | Qt::AlignVCenter, sev);
    p.setPen(palette().text().color());
    p.drawText(QRect(area.left() + 100, y, 220, lh), Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(f.rule));
    p.setFont(font());
    p.drawText(QRect(area.left() + 320, y, listW - 320, lh), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(font()).elidedText(QString::fromStdString(f.message), Qt::ElideRight, listW - 320));
    y += lh;
  }
  if (!listed_.empty()) {
    const RuleInfo* info = findRule(report_.findings[size_t(listed_.front())].rule);
    if (info) {
      p.setPen(palette().text().color());
      p.setFont(font());
      p.drawText(
          QRect(area.left() + listW + 16, area.top() + lh + 10, area.width() - listW - 24, area.height() - lh - 16),
          Qt::TextWordWrap,
          QString::fromUtf8(info->name.data(), qsizetype(info->name.size())) + QStringLiteral(": ") +
              QString::fromUtf8(info->explanation.data(), qsizetype(info->explanation.size())));
    }
  }
}

} // namespace maskscope
