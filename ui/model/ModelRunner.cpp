// Model loading and forward passes in worker threads.
#include "ui/model/ModelRunner.h"
#include "core/forward/LossPlan.h"
#include "core/forward/ModelSpec.h"
#include "ui/shell/WorkerPool.h"

#include <algorithm>
#include <cmath>

#include <QtConcurrent/QtConcurrentRun>

namespace maskscope {

ModelRunner::ModelRunner(QObject* parent) : QObject(parent), cancel_(std::make_shared<std::atomic<bool>>(false)) {
  qRegisterMetaType<maskscope::ModelRun>("maskscope::ModelRun");
  loadWatcher_ = new QFutureWatcher<std::shared_ptr<ForwardModel>>(this);
  runWatcher_ = new QFutureWatcher<ModelRun>(this);
  connect(loadWatcher_, &QFutureWatcher<std::shared_ptr<ForwardModel>>::finished, this, [this] {
    auto m = loadWatcher_->result();
    if (!m) {
      Q_EMIT failed(loadError_);
      return;
    }
    model_ = std::move(m);
    Q_EMIT modelLoaded(description());
  });
  qRegisterMetaType<maskscope::LessonsRun>("maskscope::LessonsRun");
  lessonsWatcher_ = new QFutureWatcher<LessonsRun>(this);
  connect(lessonsWatcher_, &QFutureWatcher<LessonsRun>::finished, this, [this] {
    Q_EMIT lessonsFinished(lessonsWatcher_->result());
    if (!pendingLessons_) return;
    auto [batch, row] = std::move(*pendingLessons_);
    pendingLessons_.reset();
    runLessons(batch, row);
  });
  connect(runWatcher_, &QFutureWatcher<ModelRun>::finished, this, [this] {
    ModelRun r = runWatcher_->result();
    if (!r.error.isEmpty())
      Q_EMIT failed(r.error);
    else
      Q_EMIT finished(r);
    startPending();
  });
}

ModelRunner::~ModelRunner() {
  cancel();
  loadWatcher_->waitForFinished();
  runWatcher_->waitForFinished();
  lessonsWatcher_->waitForFinished();
}

bool ModelRunner::busy() const {
  return loadWatcher_->isRunning() || runWatcher_->isRunning() || lessonsWatcher_->isRunning();
}

void ModelRunner::cancel() {
  pending_.reset();
  pendingLessons_.reset();
  cancel_->store(true);
}

void ModelRunner::startPending() {
  if (!pending_ || runWatcher_->isRunning()) return;
  Request next = std::move(*pending_);
  pending_.reset();
  run(next.batch, next.layer, next.head, next.analyseRow);
}

QString ModelRunner::description() const {
  if (!model_) return {};
  const ModelInfo& i = model_->info();
  return tr("%1: %2, %3 layers x %4 heads, %5")
      .arg(spec_, QString::fromStdString(i.architecture))
      .arg(i.layers)
      .arg(i.heads)
      .arg(QString::fromStdString(i.device));
}

void ModelRunner::load(const QString& spec) {
  if (loadWatcher_->isRunning()) return;
  spec_ = spec;
  model_.reset();
  Q_EMIT progress(0, tr("loading %1 (LibTorch loads on first use)...").arg(spec));
  const std::string s = spec.toStdString();
  loadWatcher_->setFuture(QtConcurrent::run(workerPool(), [this, s]() -> std::shared_ptr<ForwardModel> {
    try {
      return loadForwardModel(s, "auto");
    } catch (const std::exception& e) {
      loadError_ =
          tr("Could not load the model: %1. Load a model to see real scores; the views use example values until then.")
              .arg(QString::fromUtf8(e.what()));
      return nullptr;
    }
  }));
}

namespace {
// The row's loss analysis: the engine measures the gradient of the pad and real terms (autograd),
// so the loss view shows measured shares, not token counts.
void analyseRowInto(ForwardModel& model, const Batch& batch, int row, const RunControl& ctl, ModelRun& r) {
  if (row < 0 || row >= batch.batchSize() || !batch.labels.sameShape(batch.inputIds)) return;
  r.reportRow = row;
  try {
    const Batch one = batchRow(batch, row);
    r.rowReport = model.analyse(buildLossRequest(one, true), ctl);
  } catch (const std::exception& e) {
    r.reportError = QString::fromUtf8(e.what());
  }
}
} // namespace

ModelRun runModelOnce(ForwardModel& model, const Batch& batch, int layer, int head, const std::atomic<bool>* cancel,
                      int analyseRow, const std::function<void(double, const std::string&)>& progress) {
  ForwardInputs in;
  in.inputIds = batch.inputIds;
  in.attentionMask = batch.attentionMask;
  in.positionIds = batch.positionIds;
  in.labels = batch.labels;
  AttentionCapture cap;
  if (batch.length() <= ModelRunner::kMaxCaptureLength) {
    cap.layers = {layer};
    cap.heads = {head};
    cap.scores = true; // the softmax view's real scores, before the mask
  }
  ModelRun r;
  r.layer = layer;
  r.head = head;
  try {
    RunControl ctl;
    ctl.cancel = cancel;
    ctl.progress = progress;
    r.output = model.forward(in, cap, false, ctl);
    analyseRowInto(model, batch, analyseRow, ctl, r);
  } catch (const std::exception& e) {
    r.error = QString::fromUtf8(e.what());
  }
  return r;
}

LessonsRun measureRowLessons(ForwardModel& model, const Batch& batch, int row, const std::atomic<bool>* cancel) {
  LessonsRun r;
  try {
    r.row = batchRow(batch, row);
    RunControl ctl;
    ctl.cancel = cancel;
    r.lessons = model.lessons(buildLessonsRequest(r.row, model.info().vocabSize), ctl);
  } catch (const std::exception& e) {
    r.error = QString::fromUtf8(e.what());
  }
  return r;
}

namespace {
// Row r's [T, T] slice of a captured [B, T, T] tensor (probs or scores), empty when none fits.
std::vector<float> capturedRow(const ModelRun& run, int row, int64_t length, std::vector<float> CapturedAttention::*f) {
  for (const CapturedAttention& a : run.output.attention) {
    const std::vector<float>& all = a.*f;
    const size_t T = size_t(a.length);
    if (a.length != length || row < 0 || row >= a.batch || all.size() != size_t(a.batch) * T * T) continue;
    return std::vector<float>(all.begin() + long(size_t(row) * T * T), all.begin() + long(size_t(row + 1) * T * T));
  }
  return {};
}
} // namespace

std::vector<float> rowAttention(const ModelRun& run, int row, int64_t length) {
  return capturedRow(run, row, length, &CapturedAttention::probs);
}

std::vector<float> rowScores(const ModelRun& run, int row, int64_t length) {
  return capturedRow(run, row, length, &CapturedAttention::scores);
}

QString modelScoresLabel(const ModelRun& run, int64_t length) {
  for (const CapturedAttention& a : run.output.attention)
    if (a.length == length && !a.scores.empty())
      return ModelRunner::tr("layer %1 head %2, the pre-softmax scores q\u00b7k \u00d7 scale, before the mask")
          .arg(a.layer)
          .arg(a.head);
  if (!run.error.isEmpty()) return ModelRunner::tr("the forward pass failed: %1").arg(run.error);
  if (length > ModelRunner::kMaxCaptureLength)
    return ModelRunner::tr("the model's scores are captured for rows up to %1 positions")
        .arg(ModelRunner::kMaxCaptureLength);
  return ModelRunner::tr("the model's scores were not captured");
}

void ModelRunner::run(const Batch& batch, int layer, int head, int analyseRow) {
  if (!model_) return;
  if (runWatcher_->isRunning()) {
    pending_ = Request{batch, layer, head, analyseRow};
    return;
  }
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto model = model_;
  auto cancel = cancel_;
  auto lock = lock_;
  // Emitted from the worker: the connection to the window is queued (this object lives on the UI thread,
  // and the destructor waits for the run, so `this` outlives the worker).
  auto report = [this](double f, const std::string& text) { Q_EMIT progress(f, QString::fromStdString(text)); };
  Q_EMIT runStarted();
  runWatcher_->setFuture(
      QtConcurrent::run(workerPool(), [model, lock, batch, cancel, layer, head, analyseRow, report]() {
        std::lock_guard<std::mutex> hold(*lock);
        return runModelOnce(*model, batch, layer, head, cancel.get(), analyseRow, report);
      }));
}

} // namespace maskscope

namespace maskscope {

void ModelRunner::runLessons(const Batch& batch, int row) {
  if (!model_) return;
  if (lessonsWatcher_->isRunning()) {
    pendingLessons_ = std::make_pair(batch, row);
    return;
  }
  auto model = model_;
  auto lock = lock_;
  auto cancel = cancel_;
  lessonsWatcher_->setFuture(QtConcurrent::run(workerPool(), [model, lock, batch, row, cancel]() {
    std::lock_guard<std::mutex> hold(*lock);
    return measureRowLessons(*model, batch, row, cancel.get());
  }));
}

} // namespace maskscope
