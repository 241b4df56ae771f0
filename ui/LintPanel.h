// The lint findings panel: lints the current batch (core/lint lintBatch) or the whole dataset (in
// a worker, with progress); selecting a finding jumps to its row and position (strip and grid
// follow the session) and shows the rule's explanation beside the list.
#pragma once
#include "core/lint/LintReport.h"

#include <QFutureWatcher>
#include <QWidget>

class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTextBrowser;

namespace maskscope {

class Session;

class LintPanel : public QWidget {
  Q_OBJECT
public:
  explicit LintPanel(Session* session, QWidget* parent = nullptr);
  ~LintPanel() override;

  void lintCurrentBatch();
  void lintDataset();  // worker thread; the panel updates when it finishes
  const LintReport& report() const { return report_; }
  QListWidget* list() const { return list_; }
  QString explanationText() const;
  void selectFinding(int index);
  // Dataset rows with at least one finding of rule ("" = any), from the last run.
  QList<int> rowsWithFindings(const QString& rule = {}) const;
  void render(QPainter& p, QRect area) const;

Q_SIGNALS:
  void reportChanged();

private:
  void showReport(LintReport report, bool datasetRows);

  Session* session_;
  QListWidget* list_ = nullptr;
  QTextBrowser* explanation_ = nullptr;
  QLabel* summary_ = nullptr;
  QPushButton* datasetButton_ = nullptr;
  QProgressBar* progress_ = nullptr;
  LintReport report_;
  bool jumping_ = false;
  bool datasetRows_ = false; // findings' rows are dataset rows (else batch rows)
  QFutureWatcher<LintReport>* watcher_ = nullptr;
};

} // namespace maskscope
