// The dataset browser's behaviour: fills the row list from the session, applies the search, message-
// count, token-length and lint-finding filters, and measures token lengths in a worker (once per
// dataset and tokenizer/template) when the length filter is first used. The window only shows it.
#pragma once
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <vector>

namespace maskscope {

class DatasetView;
class LintView;
class Session;

class DatasetController : public QObject {
  Q_OBJECT
public:
  DatasetController(Session* session, DatasetView* view, LintView* lint, QObject* parent = nullptr);
  ~DatasetController() override;

  int visibleRowCount() const;
  // The token-length filter measures every row once per dataset and tokenizer/template, in a worker.
  bool tokenLengthsPending() const { return lengthsPending_; }
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
  void applyFilter();
  bool rowMatches(int row, const QString& text, int minMessages, int minTokens) const;
  void startTokenLengths();
  void cancelTokenLengths();

  Session* session_;
  DatasetView* view_;
  LintView* lint_;
  std::vector<int> tokenLengths_; // per dataset row, computed (in a worker) when the length filter is first used
  QString lengthsKey_;            // tokenizer + template the lengths were (or are being) measured with
  quint64 lengthsGeneration_ = 0; // results of an older generation (dataset or pipeline changed) are dropped
  bool lengthsPending_ = false;
  QFutureWatcher<std::vector<int>>* lengthsWatcher_ = nullptr;
};

} // namespace maskscope
