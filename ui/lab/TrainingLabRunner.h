// Runs `train-ab` for the Training lab off the UI thread: plans the two runs (core/train/TrainPlan)
// and drives the LibTorch module's trainer through the plain C++ interface on its own QThread (explicit
// stack size), forwarding every step and held-out score to the UI thread as it happens. Cancellable.
#pragma once
#include "core/forward/ForwardEngine.h"
#include "core/train/TrainPlan.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

class QThread;

namespace maskscope {

class TrainingLabRunner : public QObject {
  Q_OBJECT
public:
  // The worker's stack: planning and LibTorch's autograd recurse deeper than the default 8 MiB
  // guarantees on every platform, so it is set rather than inherited.
  static constexpr uint kStackBytes = 32u * 1024u * 1024u;

  explicit TrainingLabRunner(QObject* parent = nullptr);
  ~TrainingLabRunner() override; // cancels and waits for the worker

  void start(const TrainArgs& args); // ignored while busy
  void cancel();
  bool busy() const { return thread_ != nullptr; }
  // The last finished run (both null before one finished, and while a new one runs).
  const TrainABPlan* plan() const { return done_ ? &done_->plan : nullptr; }
  const TrainReport* report() const { return done_ ? &done_->report : nullptr; }

Q_SIGNALS:
  void planned(const QString& collatorA, const QString& collatorB, int steps);
  void stepDone(int run, const maskscope::TrainStepRecord& record);
  void heldOutDone(int run, const maskscope::HeldOutRecord& record);
  void progress(double fraction, const QString& text);
  void finished();
  void failed(const QString& message); // "cancelled" after cancel()

private:
  struct Job {
    TrainArgs args;
    std::atomic<bool> cancel{false};
    TrainABPlan plan;
    TrainReport report;
    QString error;
  };
  void work(Job& job); // on the worker thread
  void post(std::function<void()> f);
  void collect();

  QThread* thread_ = nullptr;
  std::shared_ptr<Job> job_, done_;
};

} // namespace maskscope
