// The Training lab's worker (see TrainingLabRunner.h). The observer and progress callbacks run on the
// worker thread; each posts a copy of its record to this object's (the UI) thread.
#include "ui/lab/TrainingLabRunner.h"
#include "core/forward/ForwardEngineLoader.h"

#include <QThread>
#include <sstream>

namespace maskscope {

TrainingLabRunner::TrainingLabRunner(QObject* parent) : QObject(parent) {}

TrainingLabRunner::~TrainingLabRunner() {
  if (!thread_) return;
  job_->cancel = true;
  thread_->wait(); // the trainer checks cancel between steps and generations
  delete thread_;
}

void TrainingLabRunner::post(std::function<void()> f) {
  QMetaObject::invokeMethod(this, std::move(f), Qt::QueuedConnection);
}

void TrainingLabRunner::start(const TrainArgs& args) {
  if (thread_) return;
  done_.reset();
  job_ = std::make_shared<Job>();
  job_->args = args;
  std::shared_ptr<Job> job = job_;
  thread_ = QThread::create([this, job] { work(*job); });
  thread_->setObjectName(QStringLiteral("maskscope-training-lab"));
  thread_->setStackSize(kStackBytes);
  connect(thread_, &QThread::finished, this, &TrainingLabRunner::collect);
  thread_->start();
}

void TrainingLabRunner::cancel() {
  if (job_) job_->cancel = true;
}

void TrainingLabRunner::work(Job& job) {
  try {
    std::ostringstream skipped; // rows the dataset reader skipped: shown with an error only
    job.plan = planTrainAB(job.args, skipped);
    const QString a = QString::fromStdString(job.plan.collator[0]), b = QString::fromStdString(job.plan.collator[1]);
    const int steps = int(job.plan.request.runs[0].steps.size());
    post([this, a, b, steps] { Q_EMIT planned(a, b, steps); });
    std::shared_ptr<ForwardEngine> engine = requireForwardEngine();
    TrainObserver obs;
    obs.step = [this](int run, const TrainStepRecord& r) { post([this, run, r] { Q_EMIT stepDone(run, r); }); };
    obs.heldOut = [this](int run, const HeldOutRecord& h) { post([this, run, h] { Q_EMIT heldOutDone(run, h); }); };
    RunControl control;
    control.cancel = &job.cancel;
    control.progress = [this](double f, const std::string& text) {
      const QString t = QString::fromStdString(text);
      post([this, f, t] { Q_EMIT progress(f, t); });
    };
    job.report = engine->trainAB(job.plan.request, obs, control);
  } catch (const std::exception& e) { // maskscope::Error's what() names the input and the place
    job.error = QString::fromUtf8(e.what());
  }
  if (job.cancel) job.error = QStringLiteral("cancelled");
}

// On the UI thread once the worker has ended: everything it wrote is visible here.
void TrainingLabRunner::collect() {
  thread_->deleteLater();
  thread_ = nullptr;
  std::shared_ptr<Job> job = std::move(job_);
  if (!job->error.isEmpty()) return Q_EMIT failed(job->error);
  done_ = std::move(job);
  Q_EMIT finished();
}

} // namespace maskscope
