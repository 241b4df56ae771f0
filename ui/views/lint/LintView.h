// The lint findings panel: lints the current batch (core/lint lintBatch) or the whole dataset, both
// in workers so the UI never waits; row changes re-lint debounced (150 ms) and only while the panel
// is on screen, and a generation counter drops results of batches no longer selected. Selecting a
// finding jumps to its row and position and shows the rule's explanation beside the list.
// Never stale: findings remember the file and settings they were made for; when those change, the
// whole-dataset findings are dropped (marked in the summary) and the current batch is re-linted, and
// a dataset run still in flight is dropped when it finishes.
#pragma once
#include "core/lint/LintReport.h"

#include <QFutureWatcher>
#include <QMargins>
#include <QWidget>

class QHBoxLayout;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTextBrowser;
class QTimer;

namespace maskscope {

class Session;

class LintView : public QWidget {
  Q_OBJECT
public:
  explicit LintView(Session* session, QWidget* parent = nullptr);
  ~LintView() override;

  void lintCurrentBatch();      // synchronous (snapshots, first fill)
  void lintCurrentBatchAsync(); // in a worker; the result is shown only if still current
  void lintDataset();           // worker thread; the panel updates when it finishes
  bool lintPending() const;
  int reportedRow() const { return reportRow_; } // dataset row selected when the shown batch report was made
  const LintReport& report() const { return report_; }
  QListWidget* list() const { return list_; }
  QString explanationText() const;
  // index: a finding of report() (report order); the list shows it at listRowOf(index).
  void selectFinding(int index);
  // The list shows the findings errors first, then warnings, then infos, each severity in report
  // order (the audit page's order, lint --report): list row <-> index in report().findings; -1 where
  // none (the "... more" line, a finding past kMaxListed).
  int findingAtRow(int row) const;
  int listRowOf(int index) const;
  // Dataset rows with at least one finding of rule ("" = any), from the last run.
  QList<int> rowsWithFindings(const QString& rule = {}) const;
  // The rules of the shown findings that name a row, each with its number of rows, in catalogue order.
  QList<QPair<QString, int>> rulesWithRows() const;
  // Every shown finding (a dataset run keeps all of them) as lint --findings-out writes them: TSV,
  // CSV or JSON Lines by the path's extension. False with the reason when it cannot be written.
  bool exportFindings(const QString& path, QString* error = nullptr) const;
  // Findings listed at most in the panel (the report and the export keep all).
  static constexpr int kMaxListed = 2000;
  void render(QPainter& p, QRect area) const;
  QString summaryText() const;
  // The shown findings were made for another file or other settings (until the re-lint lands).
  bool isStale() const;
  bool showsDatasetFindings() const { return datasetRows_; }
  // Compact (presenter mode on a small screen): the buttons, the summary line and three lines of the
  // findings list; the explanation folds away (kept, not cleared) until compact is turned off.
  void setCompact(bool on);
  bool compact() const { return compact_; }
  QLabel* summaryLabel() const { return summary_; }
  // Nothing to list (no findings): the panel is its one line of buttons and summary, the list and
  // explanation fold away and the panel asks for no more height (its dock shrinks to that line).
  // Not in compact mode (presenter mode keeps its three lines of list there: the panel's height stays
  // put while Next steps through bugs and clean rows).
  bool quiet() const { return quiet_; }

Q_SIGNALS:
  void reportChanged();
  void quietChanged(bool quiet);

protected:
  void showEvent(QShowEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  void setSummary(const QString& text);
  void showReport(LintReport report, bool datasetRows);
  void resizeCompactList();
  void applyQuiet();                // quiet when empty_ and not compact
  void applySizePolicy();           // Maximum (asks for its least height) when compact or quiet
  void lintFrameworkDatasetAsync(); // framework mode: the whole dataset through the framework
  void onBatchChanged();
  void onSettingsChanged(); // another file, tokenizer, template, collator or batch size
  QString settingsKey() const;
  QString staleNote() const;
  void settleSummary(); // nothing in flight any more: the summary names what is shown
  QString countsText() const;
  QString noFindingsText() const; // "No findings" only for a batch lint has judged
  void locateBatchFindings();

  Session* session_;
  QListWidget* list_ = nullptr;
  QTextBrowser* explanation_ = nullptr;
  QLabel* summary_ = nullptr;
  QWidget* findings_ = nullptr; // the list and the explanation, side by side
  bool compact_ = false;
  bool quiet_ = false;         // shown as its one line
  bool empty_ = false;         // the shown report has no findings
  QHBoxLayout* bar_ = nullptr; // the buttons and, outside compact mode, the summary
  QMargins normalMargins_;     // the layout's margins outside compact mode (saved on the first fold)
  QPushButton* datasetButton_ = nullptr;
  QProgressBar* progress_ = nullptr;
  LintReport report_;
  std::vector<int> listed_; // list row -> index in report_.findings, errors first (findingAtRow)
  bool jumping_ = false;
  bool datasetRows_ = false;                      // findings' rows are dataset rows (else batch rows)
  QFutureWatcher<LintReport>* watcher_ = nullptr; // the dataset run
  QTimer* debounce_ = nullptr;
  quint64 generation_ = 0; // bumped whenever a pending batch result stops being wanted
  int pending_ = 0;        // batch lints in flight
  bool dirty_ = false;     // the batch changed while the panel was hidden
  int reportRow_ = -1;
  std::vector<long> reportSourceRows_; // sourceRows of the batch the shown findings came from
  QString reportKey_;                  // settingsKey() the shown findings were made for
  QString datasetRunKey_;              // settingsKey() of the dataset run in flight
  QString staleNote_;                  // why findings were dropped, shown before the summary ...
  int staleNoteRow_ = -2;              // ... while the row selected then is still selected
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in LintViewSpec.cpp.
struct ViewSpec;
ViewSpec lintViewSpec();

} // namespace maskscope
