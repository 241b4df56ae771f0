// Runs the model off the UI thread: loads the LibTorch engine and the model on first use
// (QtConcurrent), then one forward pass per batch for per-token NLL and one layer/head's attention
// probabilities. Cancellable; reports progress; never blocks the UI.
#pragma once
#include "core/data/Batch.h"
#include "core/forward/ForwardEngine.h"
#include "core/forward/MaskLessons.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace maskscope {

struct ModelRun {
  ForwardOutput output;
  QString error;
  int layer = 0, head = 0;
  // The loss view's measurements of one row (analyseRow), the row alone as a batch of one:
  // the engine's gradient norms of its pad and real terms and its loss under the fixed and (when
  // packed) block-diagonal masks. Empty when not asked for, or when the row has no labels.
  std::optional<LossReport> rowReport;
  int reportRow = -1;
  QString reportError; // why rowReport is empty although asked for
};

// One forward pass with one layer/head's attention probabilities and pre-softmax scores captured (when
// the row is short enough), then,
// when analyseRow >= 0, ForwardModel::analyse of that row; what ModelRunner runs in a worker and
// what off-screen snapshots run directly. progress (fraction, text) is called from the running
// thread after every decoder layer.
ModelRun runModelOnce(ForwardModel& model, const Batch& batch, int layer, int head,
                      const std::atomic<bool>* cancel = nullptr, int analyseRow = -1,
                      const std::function<void(double, const std::string&)>& progress = {});

// The masking lessons of one row (ForwardModel::lessons on the row alone as a batch of one): what
// ModelRunner::runLessons runs in a worker and what off-screen snapshots run directly.
struct LessonsRun {
  Batch row; // the row measured, a batch of one
  std::optional<MaskLessons> lessons;
  QString error; // why lessons is empty
};
LessonsRun measureRowLessons(ForwardModel& model, const Batch& batch, int row,
                             const std::atomic<bool>* cancel = nullptr);

// Row r's captured attention probabilities ([T, T], row-major), empty when none was captured.
std::vector<float> rowAttention(const ModelRun& run, int row, int64_t length);
// Row r's captured pre-softmax scores ([T, T], row-major; CapturedAttention::scores: q k^T * scale,
// soft-capped where the model caps, before the mask), empty when none were captured. What the softmax
// view shows as a model's scores; it adds the mask and softmaxes them itself.
std::vector<float> rowScores(const ModelRun& run, int row, int64_t length);
// The softmax view's label for rowScores of a batch `length` positions long: which layer and head the
// scores are, or, when there are none, why they were not captured.
QString modelScoresLabel(const ModelRun& run, int64_t length);

class ModelRunner : public QObject {
  Q_OBJECT
public:
  explicit ModelRunner(QObject* parent = nullptr);
  ~ModelRunner() override;

  void load(const QString& spec); // async; modelLoaded or failed
  // async; progress per layer, then finished or failed. analyseRow >= 0: also the loss analysis of
  // that row (rowReport). While a pass runs, the latest request waits and runs next (a layer picked
  // mid-run is not lost).
  void run(const Batch& batch, int layer, int head, int analyseRow = -1);
  // async: the masking lessons of row `row` of batch (lessonsFinished). A request while lessons run
  // waits and replaces any waiting one.
  void runLessons(const Batch& batch, int row);
  void cancel(); // a running forward stops after the current layer
  bool hasModel() const { return model_ != nullptr; }
  bool busy() const;
  QString description() const;
  QString spec() const { return spec_; } // the model loaded (or loading)
  // The loaded model for other views' passes (compare); hold modelLock() around every call into it.
  std::shared_ptr<ForwardModel> model() const { return model_; }
  std::shared_ptr<std::mutex> modelLock() const { return lock_; }
  int layers() const { return model_ ? int(model_->info().layers) : 0; }
  const ModelInfo* info() const { return model_ ? &model_->info() : nullptr; }
  int heads() const { return model_ ? int(model_->info().heads) : 0; }
  // Attention is captured only up to this length ([T, T] floats per row).
  static constexpr int64_t kMaxCaptureLength = 2048;

Q_SIGNALS:
  void modelLoaded(const QString& description);
  void finished(const maskscope::ModelRun& run);
  void failed(const QString& message);
  void progress(double fraction, const QString& text); // loading, and each layer of a forward pass
  void runStarted();                                   // a forward pass began (progress follows)
  void lessonsFinished(const maskscope::LessonsRun& run);

private:
  std::shared_ptr<ForwardModel> model_;
  std::shared_ptr<std::mutex> lock_ = std::make_shared<std::mutex>(); // one pass at a time on model_
  QString spec_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QFutureWatcher<std::shared_ptr<ForwardModel>>* loadWatcher_ = nullptr;
  QFutureWatcher<ModelRun>* runWatcher_ = nullptr;
  QString loadError_;
  struct Request {
    Batch batch;
    int layer = 0, head = 0, analyseRow = -1;
  };
  std::optional<Request> pending_;
  void startPending();
  QFutureWatcher<LessonsRun>* lessonsWatcher_ = nullptr;
  std::optional<std::pair<Batch, int>> pendingLessons_;
};

} // namespace maskscope
