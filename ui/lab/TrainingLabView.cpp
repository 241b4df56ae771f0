// The Training lab panel (see TrainingLabView.h): form on top, the three charts, the progress bar
// and status line, then the generations. The JSON export is trainReportJson, the writer of
// `train-ab --json`, on the plan and report of the last finished run.
#include "ui/lab/TrainingLabView.h"
#include "core/train/TrainPlan.h"
#include "core/train/TrainReport.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"
#include "ui/lab/TrainingLabCharts.h"
#include "ui/lab/TrainingLabForm.h"
#include "ui/lab/TrainingLabGenerations.h"
#include "ui/lab/TrainingLabRunner.h"
#include "ui/shell/Export.h"
#include "ui/teaching/ExposureText.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace maskscope {

TrainingLabView::TrainingLabView(QWidget* parent) : QWidget(parent) {
  runner_ = new TrainingLabRunner(this);
  form_ = new TrainingLabForm;
  charts_ = new TrainingLabCharts;
  generations_ = new TrainingLabGenerations;
  progress_ = new QProgressBar;
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  status_ = new QLabel(tr("builtin:tiny on the demo data, the buggy collator (A) against the correct one (B)."));
  status_->setWordWrap(true);
  // Room for the done line and the report's notes: a squeezed panel would clip a wrapped label.
  status_->setMinimumHeight(3 * status_->fontMetrics().lineSpacing());
  status_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  exposureLabel_ = new QLabel;
  exposureLabel_->setObjectName(QStringLiteral("exposure"));
  exposureLabel_->setWordWrap(true);
  exposureLabel_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  exposureLabel_->hide(); // until a run has finished: the panel keeps its room for the charts
  exportPng_ = new QPushButton(tr("Export PNG..."));
  exportJson_ = new QPushButton(tr("Export JSON..."));
  exportJson_->setEnabled(false);
  auto* bar = new QHBoxLayout;
  bar->addWidget(progress_, 1);
  bar->addWidget(exportPng_);
  bar->addWidget(exportJson_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(form_);
  layout->addWidget(charts_, 5);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(exposureLabel_);
  layout->addWidget(generations_, 4);

  connect(form_, &TrainingLabForm::startRequested, this, &TrainingLabView::start);
  connect(form_, &TrainingLabForm::cancelRequested, this, &TrainingLabView::cancel);
  connect(exportPng_, &QPushButton::clicked, this, [this] { askExport(false); });
  connect(exportJson_, &QPushButton::clicked, this, [this] { askExport(true); });
  connect(runner_, &TrainingLabRunner::planned, this, [this](const QString& a, const QString& b, int steps) {
    charts_->reset(a, b, steps);
    setStatus(tr("Training %1 (A) and %2 (B) for %3 steps, one step of each in turn...").arg(a, b).arg(steps));
  });
  connect(runner_, &TrainingLabRunner::stepDone, charts_, &TrainingLabCharts::addStep);
  connect(runner_, &TrainingLabRunner::heldOutDone, charts_, &TrainingLabCharts::addHeldOut);
  connect(runner_, &TrainingLabRunner::progress, this, [this](double f, const QString& text) {
    progress_->setValue(int(1000 * f));
    progress_->setFormat(text);
    if (f >= 1.0) setStatus(tr("Trained; generating from both models on the held-out prompts..."));
  });
  connect(runner_, &TrainingLabRunner::finished, this, &TrainingLabView::finished);
  connect(runner_, &TrainingLabRunner::failed, this, &TrainingLabView::failed);
}

TrainingLabView::~TrainingLabView() = default; // the runner (a child) cancels and waits

bool TrainingLabView::running() const { return runner_->busy(); }
bool TrainingLabView::hasResult() const { return runner_->report() != nullptr; }
QString TrainingLabView::status() const { return status_->text(); }
QString TrainingLabView::exposureLine() const { return exposure_ ? exposureLabel_->text() : QString(); }

QString exposureLineOf(const ExposureReport& x) {
  const ExposureBias &a = x.runs[0], &b = x.runs[1];
  if (a.replies.empty() && b.replies.empty())
    return TrainingLabView::tr("Exposure bias: no held-out reply to compare the generations with.");
  return TrainingLabView::tr("Exposure bias on %1 held-out replies: teacher-forced (reading the true reply) A "
                             "picks %2 of the next tokens, B %3; generating (reading its own output) A follows the "
                             "reply for %4 tokens, B for %5 (medians), then A matches %6 of the tokens after that "
                             "(%7 teacher-forced), B %8 (%9).")
      .arg(std::max(a.replies.size(), b.replies.size()))
      .arg(exposurePercent(a.teacherForcedAccuracy()), exposurePercent(b.teacherForcedAccuracy()),
           exposureTokens(a.medianFirstDivergence), exposureTokens(b.medianFirstDivergence),
           exposurePercent(a.freeRunningAfterAccuracy()), exposurePercent(a.teacherForcedAfterAccuracy()),
           exposurePercent(b.freeRunningAfterAccuracy()), exposurePercent(b.teacherForcedAfterAccuracy()));
}
void TrainingLabView::setStatus(const QString& text) { status_->setText(text); }

void TrainingLabView::start() {
  if (running()) return;
  TrainArgs args;
  try {
    args = form_->args();
  } catch (const Error& e) {
    return failed(QString::fromUtf8(e.what()));
  }
  charts_->reset(tr("run A"), tr("run B"), int(args.steps));
  generations_->clear();
  progress_->setValue(0);
  progress_->setFormat(tr("loading the model"));
  exportJson_->setEnabled(false);
  exposure_.reset();
  exposureLabel_->hide();
  form_->setRunning(true);
  setStatus(tr("Preparing the batches of both runs..."));
  clock_.start();
  runner_->start(args);
}

void TrainingLabView::cancel() {
  if (!running()) return;
  runner_->cancel();
  setStatus(tr("Cancelling after the current step..."));
}

void TrainingLabView::finished() {
  form_->setRunning(false);
  const TrainABPlan& plan = *runner_->plan();
  const TrainReport& report = *runner_->report();
  progress_->setValue(1000);
  progress_->setFormat(tr("done"));
  generations_->showResults(plan, report);
  exposure_ = exposureReport(plan, report);
  exposureLabel_->setText(exposureLineOf(*exposure_));
  exposureLabel_->show();
  exportJson_->setEnabled(true);
  QString notes;
  const nlohmann::json log = trainReportJson(plan, report); // kept: its verdict and notes are read below
  for (const auto& n : log["notes"]) notes += tr(" Note: %1.").arg(QString::fromStdString(n.get<std::string>()));
  // The sentence first: whether the experiment's predicted effect appeared, with the numbers.
  const QString verdict = log["verdict"].is_object()
                              ? QString::fromStdString(log["verdict"]["text"].get<std::string>()) + QLatin1Char(' ')
                              : QString();
  // Where the model started: its held-out loss before fine-tuning beside knowing nothing (uniform, ln V).
  QString before;
  if (const auto& h = log["held_out_before"]; h.is_object())
    before = tr(" Before fine-tuning the held-out loss was %1 (uniform over the %2 tokens: %3).")
                 .arg(h["loss"].get<double>(), 0, 'f', 3)
                 .arg(log["vocab_size"].get<int64_t>())
                 .arg(h["uniform_loss"].get<double>(), 0, 'f', 3);
  setStatus(verdict + tr("Done on %1 in %2 s: %3 steps of each run, %4 held-out prompts answered by each model.%5%6")
                          .arg(QString::fromStdString(report.device))
                          .arg(double(clock_.elapsed()) / 1000.0, 0, 'f', 1)
                          .arg(report.runs[0].steps.size())
                          .arg(report.runs[0].generations.size())
                          .arg(before, notes));
  Q_EMIT runEnded(true);
}

void TrainingLabView::failed(const QString& message) {
  form_->setRunning(false);
  progress_->setFormat(message == QLatin1String("cancelled") ? tr("cancelled") : tr("failed"));
  setStatus(message == QLatin1String("cancelled") ? tr("Cancelled: the charts keep the steps trained so far.")
                                                  : tr("Training failed: %1").arg(message));
  Q_EMIT runEnded(false);
}

bool TrainingLabView::exportPng(const QString& path, QString* error) {
  if (grab().save(path, "PNG")) return true;
  if (error) *error = tr("cannot write %1").arg(path);
  return false;
}

bool TrainingLabView::exportJson(const QString& path, QString* error) const {
  if (!hasResult()) {
    if (error) *error = tr("no finished run to export");
    return false;
  }
  const nlohmann::json j = trainReportJson(*runner_->plan(), *runner_->report());
  return writeTextFile(path, QString::fromStdString(escapeLineSeparators(j.dump(2))) + QLatin1Char('\n'), error);
}

void TrainingLabView::askExport(bool json) {
  const QString path =
      QFileDialog::getSaveFileName(this, json ? tr("Export the run as JSON") : tr("Export the panel as PNG"),
                                   json ? QStringLiteral("training-lab.json") : QStringLiteral("training-lab.png"),
                                   json ? tr("JSON (*.json)") : tr("PNG images (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  if (!(json ? exportJson(path, &error) : exportPng(path, &error))) setStatus(error);
}

} // namespace maskscope
