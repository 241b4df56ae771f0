// Model loading and forward passes in worker threads.
#include "ui/ModelRunner.h"
#include "core/forward/ModelSpec.h"
#include "ui/WorkerPool.h"

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
  connect(runWatcher_, &QFutureWatcher<ModelRun>::finished, this, [this] {
    ModelRun r = runWatcher_->result();
    if (!r.error.isEmpty())
      Q_EMIT failed(r.error);
    else
      Q_EMIT finished(r);
  });
}

ModelRunner::~ModelRunner() {
  cancel();
  loadWatcher_->waitForFinished();
  runWatcher_->waitForFinished();
}

bool ModelRunner::busy() const { return loadWatcher_->isRunning() || runWatcher_->isRunning(); }

void ModelRunner::cancel() { cancel_->store(true); }

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

ModelRun runModelOnce(ForwardModel& model, const Batch& batch, int layer, int head, const std::atomic<bool>* cancel) {
  ForwardInputs in;
  in.inputIds = batch.inputIds;
  in.attentionMask = batch.attentionMask;
  in.positionIds = batch.positionIds;
  in.labels = batch.labels;
  AttentionCapture cap;
  if (batch.length() <= ModelRunner::kMaxCaptureLength) {
    cap.layers = {layer};
    cap.heads = {head};
  }
  ModelRun r;
  r.layer = layer;
  r.head = head;
  try {
    RunControl ctl;
    ctl.cancel = const_cast<std::atomic<bool>*>(cancel);
    r.output = model.forward(in, cap, false, ctl);
  } catch (const std::exception& e) {
    r.error = QString::fromUtf8(e.what());
  }
  return r;
}

std::vector<float> rowAttention(const ModelRun& run, int row, int64_t length) {
  for (const CapturedAttention& a : run.output.attention) {
    if (a.length != length || row >= a.batch) continue;
    const size_t T = size_t(a.length);
    return std::vector<float>(a.probs.begin() + long(size_t(row) * T * T),
                              a.probs.begin() + long(size_t(row + 1) * T * T));
  }
  return {};
}

std::vector<float> scoresFromProbabilities(const std::vector<float>& probs) {
  std::vector<float> scores(probs.size());
  for (size_t i = 0; i < probs.size(); ++i) scores[i] = probs[i] > 0 ? std::log(probs[i]) : -30.0f;
  return scores;
}

void ModelRunner::run(const Batch& batch, int layer, int head) {
  if (!model_ || runWatcher_->isRunning()) return;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto model = model_;
  auto cancel = cancel_;
  runWatcher_->setFuture(QtConcurrent::run(workerPool(), [model, batch, cancel, layer, head]() {
    return runModelOnce(*model, batch, layer, head, cancel.get());
  }));
}

} // namespace maskscope
