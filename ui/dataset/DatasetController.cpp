// The dataset browser's list and filters, driven by the session and the lint view. The search and
// the token lengths run on the worker pool over the file (DatasetScanRunner), so the session may
// change meanwhile; a result is applied only while it still answers the current text or pipeline.
#include "ui/dataset/DatasetController.h"
#include "ui/dataset/DatasetRowModel.h"
#include "ui/dataset/DatasetView.h"
#include "ui/shell/Session.h"
#include "ui/views/lint/LintView.h"

#include <QComboBox>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTreeView>
#include <algorithm>
#include <memory>

namespace maskscope {

DatasetController::DatasetController(Session* session, DatasetView* view, LintView* lint, QObject* parent)
    : QObject(parent), session_(session), view_(view), lint_(lint), model_(new DatasetRowModel(session, this)),
      search_(new DatasetScanRunner(this)), lengths_(new DatasetScanRunner(this)) {
  view_->list()->setModel(model_);
  connectSession();
  connectView();
  connectRunners();
}

DatasetController::~DatasetController() = default; // the runners cancel their workers

void DatasetController::connectSession() {
  connect(session_, &Session::datasetChanged, this, [this] {
    forgetScans();
    fillList();
  });
  // Framework mode lists the dataset's rows or the framework's prepared rows (its batch / prepared toggle).
  connect(session_, &Session::rowsChanged, this, [this] { fillList(); });
  connect(session_, &Session::pipelineChanged, this, [this] {
    // Lengths depend on the tokenizer and template, not on the collator.
    if (lengthsKey_ != session_->tokenizerSpec() + QLatin1Char('\n') + session_->templateSpec()) {
      lengths_->cancel();
      tokenLengths_.clear();
      lengthsKey_.clear();
      if (view_->minTokensBox()->value() > 0) applyFilter();
    }
  });
  // Keep the list's selection on the session's row (lint jumps, teaching steps).
  connect(session_, &Session::batchChanged, this, &DatasetController::selectSessionRow);
}

void DatasetController::connectView() {
  connect(view_->list()->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            const int r = model_->sessionRow(current.row());
            if (r >= 0) session_->selectRow(r);
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

void DatasetController::connectRunners() {
  auto progress = [this](const QString& what) {
    return [this, what](int done, int total) {
      Q_EMIT statusMessage(tr("%1: %2 / %3 rows").arg(what).arg(done).arg(total), 0);
    };
  };
  connect(search_, &DatasetScanRunner::progress, this, progress(tr("Searching")));
  connect(lengths_, &DatasetScanRunner::progress, this, progress(tr("Measuring token lengths")));
  connect(search_, &DatasetScanRunner::finished, this, [this](const QString& text, const DatasetScanRunner::Result& r) {
    if (!r.error.isEmpty()) return Q_EMIT statusMessage(tr("Search stopped: %1").arg(r.error), 0);
    searchedText_ = text;
    searchRows_ = r.values;
    Q_EMIT statusMessage(tr("%1 rows contain \u201c%2\u201d").arg(searchRows_.size()).arg(text), 4000);
    applyFilter();
  });
  connect(lengths_, &DatasetScanRunner::finished, this, [this](const QString&, const DatasetScanRunner::Result& r) {
    if (!r.error.isEmpty()) return Q_EMIT statusMessage(tr("Token lengths stopped: %1").arg(r.error), 0);
    tokenLengths_ = r.values;
    Q_EMIT statusMessage(tr("Token lengths measured for %1 rows").arg(tokenLengths_.size()), 4000);
    applyFilter();
  });
}

void DatasetController::forgetScans() {
  const bool running = search_->pending() || lengths_->pending();
  search_->cancel();
  lengths_->cancel();
  searchedText_ = QString();
  searchRows_.clear();
  tokenLengths_.clear();
  lengthsKey_.clear();
  if (running) Q_EMIT statusMessage({}, 0);
}

void DatasetController::fillList() {
  view_->minMessagesBox()->setEnabled(session_->hasConversations());
  view_->minTokensBox()->setEnabled(session_->hasConversations());
  if (!session_->rowErrors().isEmpty())
    Q_EMIT statusMessage(tr("%1 rows skipped: %2").arg(session_->rowErrors().size()).arg(session_->rowErrors().first()),
                         0);
  applyFilter();
}

std::vector<int> DatasetController::conversationMatches(const QString& text, int minMessages, int minTokens) const {
  // The search criterion applies once the pass for this text is done; until then it is not applied.
  const bool bySearch = !text.isEmpty() && searchedText_ == text;
  const bool byTokens = minTokens > 0 && int(tokenLengths_.size()) == session_->conversationCount();
  const std::shared_ptr<const DatasetIndex> index = session_->datasetIndex();
  std::vector<int> rows;
  rows.reserve(size_t(session_->conversationCount())); // 4 bytes a row, never reallocated
  for (int r = 0; r < session_->conversationCount(); ++r) {
    if (bySearch && !std::binary_search(searchRows_.begin(), searchRows_.end(), r)) continue;
    if (byTokens && tokenLengths_[size_t(r)] < minTokens) continue;
    if (minMessages > 0) {
      // The index's facts: no row is read back for this filter.
      const int messages = index ? int(index->row(size_t(r)).messages) : int(session_->conversation(r).messages.size());
      if (messages < minMessages) continue;
    }
    rows.push_back(r);
  }
  return rows;
}

void DatasetController::applyFilter() {
  const QString text = view_->searchBox()->text();
  const int minMsgs = view_->minMessagesBox()->value();
  const int minTok = view_->minTokensBox()->value();
  std::vector<int> rows;
  if (session_->hasConversations()) {
    if (!text.isEmpty() && searchedText_ != text && !(search_->pending() && search_->key() == text)) startSearch(text);
    if (text.isEmpty() && search_->pending()) search_->cancel();
    // Token lengths come from a worker; until they arrive the length criterion is not applied.
    if (minTok > 0 && int(tokenLengths_.size()) != session_->conversationCount() && !lengths_->pending())
      startTokenLengths();
    rows = conversationMatches(text, minMsgs, minTok);
  } else {
    // A dump's or a framework's rows: few and in memory, searched by their titles here.
    for (int r = 0; r < session_->rowCount(); ++r)
      if (text.isEmpty() || session_->rowTitle(r).contains(text, Qt::CaseInsensitive)) rows.push_back(r);
  }
  const QString rule = view_->findingFilterBox()->currentData().toString(); // "*": any rule
  if (!rule.isEmpty()) {
    QList<int> finding = lint_->rowsWithFindings(rule == QStringLiteral("*") ? QString() : rule);
    std::sort(finding.begin(), finding.end());
    std::erase_if(rows, [&](int r) { return !std::binary_search(finding.begin(), finding.end(), r); });
  }
  model_->setRows(std::move(rows));
  selectSessionRow();
}

void DatasetController::selectSessionRow() {
  QTreeView* list = view_->list();
  QItemSelectionModel* selection = list->selectionModel();
  const int at = model_->listRow(session_->selectedRow());
  if (at >= 0 && list->currentIndex().row() == at && selection->isSelected(model_->index(at))) return;
  QSignalBlocker block(selection);
  if (at < 0) {
    // The row the views show is not listed (a filter hides it): no row is highlighted, never the
    // previous one (a lint finding jumps to any row).
    selection->clear();
  } else {
    list->setCurrentIndex(model_->index(at));
    list->scrollTo(model_->index(at)); // the blocked currentChanged would have scrolled to it
  }
  list->viewport()->update(); // the blocked selection signals would have repainted it
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

// The texts searched are the messages' contents and a plain row's prompt and completion, as the
// list's titles come from; case-insensitive as Qt compares (Unicode case folding).
void DatasetController::startSearch(const QString& text) {
  Q_EMIT statusMessage(tr("Searching: 0 / %1 rows").arg(session_->conversationCount()), 0);
  auto perRow = [text](int row, const Conversation& c, std::vector<int>& out) {
    auto has = [&text](const std::string& s) { return QString::fromStdString(s).contains(text, Qt::CaseInsensitive); };
    bool match = c.plainText && (has(c.plainPrompt) || has(c.plainCompletion));
    for (size_t m = 0; m < c.messages.size() && !match; ++m) match = has(c.messages[m].content);
    if (match) out.push_back(row);
  };
  // A content string without escapes is in the row's bytes as is: where the row has no \u escape
  // and the text no character JSON may escape (" \ / controls), a match in a content is a match in
  // the bytes (the same comparison, on a longer string), so a row whose bytes lack the text is
  // skipped unparsed. Otherwise every row is parsed.
  bool escapable = false;
  for (QChar ch : text) escapable = escapable || ch == u'"' || ch == u'\\' || ch == u'/' || ch.unicode() < 0x20;
  DatasetScanRunner::RawFilter rawFilter;
  if (!escapable)
    rawFilter = [text](std::string_view raw) {
      return raw.find("\\u") != std::string_view::npos ||
             QString::fromUtf8(raw.data(), qsizetype(raw.size())).contains(text, Qt::CaseInsensitive);
    };
  search_->start(text, *session_, perRow, rawFilter);
}

void DatasetController::startTokenLengths() {
  if (!session_->pipeline()) return;
  lengthsKey_ = session_->tokenizerSpec() + QLatin1Char('\n') + session_->templateSpec();
  // The worker owns a pipeline sharing the session's tokenizer and template (both const), so the
  // session may change or go away meanwhile; the rows stream from the file, one at a time.
  auto pipeline =
      std::make_shared<const DatasetPipeline>(*session_->pipeline(), session_->pipeline()->collator().spec());
  Q_EMIT statusMessage(tr("Measuring token lengths: 0 / %1 rows").arg(session_->conversationCount()), 0);
  lengths_->start(lengthsKey_, *session_, [pipeline](int, const Conversation& c, std::vector<int>& out) {
    int length = 0; // an unrenderable row counts as length 0 (the dataset view shows its error)
    try {
      length = int(pipeline->encode(c).tokens.size());
    } catch (const std::exception&) {
    }
    out.push_back(length);
  });
}

int DatasetController::visibleRowCount() const { return model_->rowCount(); }

const std::vector<int>& DatasetController::visibleRows() const { return model_->rows(); }

void DatasetController::step(int direction) {
  QTreeView* list = view_->list();
  const int j = list->currentIndex().row() + direction;
  if (j >= 0 && j < model_->rowCount()) list->setCurrentIndex(model_->index(j));
}

} // namespace maskscope
