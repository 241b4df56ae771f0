// The dataset browser's behaviour: gives the list the rows the filters leave (DatasetRowModel, each
// row with its file line), and applies the search, message-count, token-length and lint-finding
// filters (any finding, or one rule). The message count comes from the dataset's offset index; the
// search and the token lengths are passes over the file in workers (DatasetScanRunner), with
// progress in the status bar, cancelled by a newer request. The window only shows it.
#pragma once
#include "ui/dataset/DatasetScanRunner.h"

#include <QObject>
#include <QString>
#include <vector>

namespace maskscope {

class DatasetRowModel;
class DatasetView;
class LintView;
class Session;

class DatasetController : public QObject {
  Q_OBJECT
public:
  DatasetController(Session* session, DatasetView* view, LintView* lint, QObject* parent = nullptr);
  ~DatasetController() override;

  int visibleRowCount() const;
  // The session rows the list shows, ascending.
  const std::vector<int>& visibleRows() const;
  // The token-length filter measures every row once per dataset and tokenizer/template, in a worker.
  bool tokenLengthsPending() const { return lengths_->pending(); }
  // The search streams over the file in a worker; until it is done the text criterion is not applied.
  bool searchPending() const { return search_->pending(); }
  // Selects the next (direction 1) or previous (-1) row the filters leave visible.
  void step(int direction);
  // Rebuilds the list from the session's rows and applies the filters.
  void fillList();

Q_SIGNALS:
  // A line for the status bar (timeoutMs 0: until replaced); an empty text clears it.
  void statusMessage(const QString& text, int timeoutMs);

private:
  void connectSession();
  void connectView();
  void connectRunners();
  void applyFilter();
  void fillFindingFilter(); // the lint filter's entries: any finding, or one rule
  void selectSessionRow();  // the list's current row follows the session's
  std::vector<int> conversationMatches(const QString& text, int minMessages, int minTokens) const;
  void startSearch(const QString& text);
  void startTokenLengths();
  void forgetScans(); // the dataset or its rows changed: results and runs in flight are dropped

  Session* session_;
  DatasetView* view_;
  LintView* lint_;
  DatasetRowModel* model_;
  DatasetScanRunner* search_;
  DatasetScanRunner* lengths_;
  QString searchedText_;          // the text searchRows_ answer (null: none yet)
  std::vector<int> searchRows_;   // rows whose texts contain searchedText_, ascending
  std::vector<int> tokenLengths_; // per dataset row, measured (in a worker) when the length filter is first used
  QString lengthsKey_;            // tokenizer + template the lengths were (or are being) measured with
};

} // namespace maskscope
