// The dataset browser's list and filters, driven by the session and the lint view; token lengths
// are measured on the worker pool with copies of what they need, so the session may change meanwhile.
#include "ui/dataset/DatasetController.h"
#include "ui/dataset/DatasetView.h"
#include "ui/shell/Session.h"
#include "ui/shell/WorkerPool.h"
#include "ui/views/lint/LintView.h"

#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPromise>
#include <QSpinBox>
#include <QtConcurrent/QtConcurrentRun>
#include <memory>

namespace maskscope {

DatasetController::DatasetController(Session* session, DatasetView* view, LintView* lint, QObject* parent)
    : QObject(parent), session_(session), view_(view), lint_(lint) {
  connectSession();
  connectView();
}

DatasetController::~DatasetController() {
  if (lengthsWatcher_) lengthsWatcher_->cancel(); // the worker owns its inputs; this only stops it early
}

void DatasetController::connectSession() {
  connect(session_, &Session::datasetChanged, this, [this] {
    cancelTokenLengths();
    tokenLengths_.clear();
    fillList();
  });
  // Framework mode lists the dataset's rows or the framework's prepared rows (its batch / prepared toggle).
  connect(session_, &Session::rowsChanged, this, [this] { fillList(); });
  connect(session_, &Session::pipelineChanged, this, [this] {
    // Lengths depend on the tokenizer and template, not on the collator.
    if (lengthsKey_ != session_->tokenizerSpec() + QLatin1Char('\n') + session_->templateSpec()) {
      cancelTokenLengths();
      tokenLengths_.clear();
      if (view_->minTokensBox()->value() > 0) applyFilter();
    }
  });
  connect(session_, &Session::batchChanged, this, [this] {
    // Keep the list's selection on the session's row (lint jumps, teaching steps).
    QListWidget* list = view_->list();
    for (int i = 0; i < list->count(); ++i)
      if (list->item(i)->data(Qt::UserRole).toInt() == session_->selectedRow() && list->currentRow() != i) {
        QSignalBlocker block(list);
        list->setCurrentRow(i);
        break;
      }
  });
}

void DatasetController::connectView() {
  QListWidget* list = view_->list();
  connect(list, &QListWidget::currentRowChanged, this, [this, list](int item) {
    if (item < 0) return;
    session_->selectRow(list->item(item)->data(Qt::UserRole).toInt());
  });
  connect(view_->searchBox(), &QLineEdit::textChanged, this, &DatasetController::applyFilter);
  connect(view_->minMessagesBox(), &QSpinBox::valueChanged, this, &DatasetController::applyFilter);
  connect(view_->minTokensBox(), &QSpinBox::valueChanged, this, &DatasetController::applyFilter);
  connect(view_->findingFilterBox(), &QComboBox::currentIndexChanged, this, &DatasetController::applyFilter);
  connect(lint_, &LintView::reportChanged, this, [this] {
    fillFindingFilter();
    if (view_->findingFilterBox()->currentIndex() > 0) applyFilter();
  });
}

void DatasetController::fillList() {
  QListWidget* list = view_->list();
  QSignalBlocker block(list);
  list->clear();
  for (int r = 0; r < session_->rowCount(); ++r) {
    auto* item = new QListWidgetItem(session_->rowTitle(r), list);
    item->setData(Qt::UserRole, r);
  }
  if (session_->selectedRow() >= 0) list->setCurrentRow(session_->selectedRow());
  view_->minMessagesBox()->setEnabled(session_->hasConversations());
  view_->minTokensBox()->setEnabled(session_->hasConversations());
  if (!session_->rowErrors().isEmpty())
    Q_EMIT statusMessage(tr("%1 rows skipped: %2").arg(session_->rowErrors().size()).arg(session_->rowErrors().first()),
                         0);
  applyFilter();
}

bool DatasetController::rowMatches(int row, const QString& text, int minMessages, int minTokens) const {
  const Conversation& c = session_->conversation(row);
  bool textMatch = text.isEmpty();
  for (const auto& m : c.messages)
    textMatch = textMatch || QString::fromStdString(m.content).contains(text, Qt::CaseInsensitive);
  textMatch =
      textMatch || (c.plainText && (QString::fromStdString(c.plainPrompt).contains(text, Qt::CaseInsensitive) ||
                                    QString::fromStdString(c.plainCompletion).contains(text, Qt::CaseInsensitive)));
  bool match = textMatch && int(c.messages.size()) >= minMessages;
  if (minTokens > 0 && size_t(row) < tokenLengths_.size()) match = match && tokenLengths_[size_t(row)] >= minTokens;
  return match;
}

void DatasetController::applyFilter() {
  const QString text = view_->searchBox()->text();
  const int minMsgs = view_->minMessagesBox()->value();
  const int minTok = view_->minTokensBox()->value();
  // Token lengths come from a worker; until they arrive the length criterion is not applied.
  if (minTok > 0 && session_->hasConversations() && int(tokenLengths_.size()) != session_->rowCount() &&
      !lengthsPending_)
    startTokenLengths();
  QList<int> findingRows;
  const QString rule = view_->findingFilterBox()->currentData().toString(); // "*": any rule
  const bool byFinding = !rule.isEmpty();
  if (byFinding) findingRows = lint_->rowsWithFindings(rule == QStringLiteral("*") ? QString() : rule);
  QListWidget* list = view_->list();
  for (int i = 0; i < list->count(); ++i) {
    QListWidgetItem* item = list->item(i);
    const int r = item->data(Qt::UserRole).toInt();
    bool match = session_->hasConversations() ? rowMatches(r, text, minMsgs, minTok)
                                              : text.isEmpty() || item->text().contains(text, Qt::CaseInsensitive);
    if (byFinding) match = match && findingRows.contains(r);
    item->setHidden(!match);
  }
}

// "all rows", "rows with lint findings", then one entry per rule of the shown findings ("rows with
// empty-reply (3)"); the rule picked stays picked while the new findings still have it.
void DatasetController::fillFindingFilter() {
  QComboBox* box = view_->findingFilterBox();
  const QString picked = box->currentData().toString();
  QSignalBlocker block(box);
  while (box->count() > 2) box->removeItem(2);
  for (const auto& [rule, rows] : lint_->rulesWithRows())
    box->addItem(tr("rows with %1 (%2)").arg(rule).arg(rows), rule);
  const int at = box->findData(picked);
  box->setCurrentIndex(at >= 0 ? at : 0);
}

void DatasetController::startTokenLengths() {
  if (!session_->pipeline()) return;
  cancelTokenLengths();
  const quint64 gen = ++lengthsGeneration_;
  lengthsKey_ = session_->tokenizerSpec() + QLatin1Char('\n') + session_->templateSpec();
  lengthsPending_ = true;
  // The worker owns copies: a pipeline sharing the session's tokenizer and template (both const)
  // and the conversations, so the session may change or go away meanwhile.
  auto pipeline =
      std::make_shared<const DatasetPipeline>(*session_->pipeline(), session_->pipeline()->collator().spec());
  auto rows = std::make_shared<std::vector<Conversation>>();
  rows->reserve(size_t(session_->rowCount()));
  for (int r = 0; r < session_->rowCount(); ++r) rows->push_back(session_->conversation(r));
  if (!lengthsWatcher_) {
    lengthsWatcher_ = new QFutureWatcher<std::vector<int>>(this);
    connect(lengthsWatcher_, &QFutureWatcherBase::progressValueChanged, this, [this](int done) {
      if (lengthsPending_)
        Q_EMIT statusMessage(
            tr("Measuring token lengths: %1 / %2 rows").arg(done).arg(lengthsWatcher_->progressMaximum()), 0);
    });
  }
  // Each run connects its own finished handler; the generation check drops a cancelled run's.
  auto* watcher = lengthsWatcher_;
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen] {
    if (gen != lengthsGeneration_ || watcher->isCanceled() || watcher->future().resultCount() == 0) return;
    disconnect(watcher, &QFutureWatcherBase::finished, this, nullptr);
    lengthsPending_ = false;
    tokenLengths_ = watcher->future().result();
    Q_EMIT statusMessage(tr("Token lengths measured for %1 rows").arg(tokenLengths_.size()), 4000);
    applyFilter();
  });
  Q_EMIT statusMessage(tr("Measuring token lengths: 0 / %1 rows").arg(rows->size()), 0);
  watcher->setFuture(QtConcurrent::run(workerPool(), [pipeline, rows](QPromise<std::vector<int>>& promise) {
    const int n = int(rows->size());
    promise.setProgressRange(0, n);
    std::vector<int> lengths(size_t(n), 0);
    for (int r = 0; r < n; ++r) {
      if (promise.isCanceled()) return;
      try {
        lengths[size_t(r)] = int(pipeline->encode((*rows)[size_t(r)]).tokens.size());
      } catch (const std::exception&) {
        // an unrenderable row counts as length 0 (the dataset view shows its error)
      }
      if ((r & 31) == 31) promise.setProgressValue(r + 1);
    }
    promise.setProgressValue(n);
    promise.addResult(std::move(lengths));
  }));
}

void DatasetController::cancelTokenLengths() {
  ++lengthsGeneration_;
  if (lengthsWatcher_) {
    disconnect(lengthsWatcher_, &QFutureWatcherBase::finished, this, nullptr);
    lengthsWatcher_->cancel();
  }
  if (lengthsPending_) Q_EMIT statusMessage({}, 0);
  lengthsPending_ = false;
}

int DatasetController::visibleRowCount() const {
  int n = 0;
  for (int i = 0; i < view_->list()->count(); ++i) n += !view_->list()->item(i)->isHidden();
  return n;
}

void DatasetController::step(int direction) {
  QListWidget* list = view_->list();
  for (int j = list->currentRow() + direction; j >= 0 && j < list->count(); j += direction)
    if (!list->item(j)->isHidden()) {
      list->setCurrentRow(j);
      break;
    }
}

} // namespace maskscope
