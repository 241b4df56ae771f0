// The Training lab: trains builtin:tiny twice on the demo data, once with a buggy collator and once
// with the correct one (an experiment of `maskscope train-ab`), with live charts of both runs and,
// at the end, both models' generations side by side. Exports the panel as PNG and the run as the
// same JSON log `train-ab --json` prints. Under the status, one line measures exposure bias: what each
// trained model picks teacher-forced on the held-out replies against where its own generation leaves them.
#pragma once
#include "core/train/ExposureBias.h"

#include <QElapsedTimer>
#include <QWidget>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;

namespace maskscope {

class TrainingLabCharts;
class TrainingLabForm;
class TrainingLabGenerations;
class TrainingLabRunner;

class TrainingLabView : public QWidget {
  Q_OBJECT
public:
  explicit TrainingLabView(QWidget* parent = nullptr);
  ~TrainingLabView() override;

  TrainingLabForm* form() const { return form_; }
  TrainingLabCharts* charts() const { return charts_; }
  TrainingLabGenerations* generations() const { return generations_; }
  bool running() const;
  bool hasResult() const; // a finished run to export as JSON
  QString status() const;
  // The exposure-bias line under the status: both runs' teacher-forced accuracy on the held-out replies
  // against their own greedy generations (core/train/ExposureBias.h), empty before a run finished.
  QString exposureLine() const;
  const ExposureReport* exposure() const { return exposure_ ? &*exposure_ : nullptr; } // the last finished run

  void start();
  void cancel();
  bool exportPng(const QString& path, QString* error = nullptr);
  bool exportJson(const QString& path, QString* error = nullptr) const;

Q_SIGNALS:
  void runEnded(bool finished); // false: failed or cancelled

private:
  void finished();
  void failed(const QString& message);
  void askExport(bool json);
  void setStatus(const QString& text);

  TrainingLabRunner* runner_ = nullptr;
  TrainingLabForm* form_ = nullptr;
  TrainingLabCharts* charts_ = nullptr;
  TrainingLabGenerations* generations_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* exposureLabel_ = nullptr;
  std::optional<ExposureReport> exposure_;
  QPushButton* exportPng_ = nullptr;
  QPushButton* exportJson_ = nullptr;
  QElapsedTimer clock_; // wall time of the run, shown when it ends
};

// The lab's exposure line for a finished pair of runs (TrainingLabView::exposureLine).
QString exposureLineOf(const ExposureReport& report);

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in TrainingLabViewSpec.cpp.
struct ViewSpec;
ViewSpec trainingLabViewSpec();

} // namespace maskscope
