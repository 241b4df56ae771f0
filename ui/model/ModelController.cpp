// Wiring between the session, the model runner and the views a forward pass feeds; every message
// goes out through statusMessage, so the window decides where it is shown.
#include "ui/model/ModelController.h"
#include "core/forward/LayerAttention.h"
#include "core/forward/ModelSpec.h"
#include "ui/model/ModelRunner.h"
#include "ui/shell/Session.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/AttentionView.h"
#include "ui/views/attention/LayerSpinBox.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/loss/LossView.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/widgets/TokenizerPicker.h"

#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <algorithm>

namespace maskscope {

ModelController::ModelController(Session* session, const ModelViews& views, QWidget* window)
    : QObject(window), session_(session), views_(views), window_(window) {
  runner_ = new ModelRunner(this);
  modelLabel_ = new QLabel(tr("no model"), window);
  progress_ = new QProgressBar(window);
  progress_->setObjectName(QStringLiteral("forwardProgress"));
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(160);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), window);
  cancel_->setObjectName(QStringLiteral("cancelForward"));
  cancel_->setToolTip(tr("Stop the forward pass after the current layer"));
  cancel_->hide();
  connectSession();
  connectAttentionControls();
  connectRunner();
  connectRunProgress();
}

QString ModelController::modelTokenizerProblem(const QString& modelSpec) const {
  // builtin:tiny's embeddings are indexed by the demo tokenizer's ids: any other tokenizer's ids
  // would be read as other tokens (or fall outside its vocabulary).
  if (modelSpec != QLatin1String("builtin:tiny") || session_->tokenizerSpec() == QLatin1String("builtin:demo"))
    return {};
  return tr("builtin:tiny needs the builtin:demo tokenizer (it was trained on its ids), not %1: choose builtin:demo "
            "in the Tokenizer box, then load the model again.")
      .arg(tokenizerDisplayName(session_->tokenizerSpec()));
}

void ModelController::runOnBatch(int analyseRow) {
  Batch batch;
  try { // the mask the session's attention implementation applies (View > Attention implementation)
    batch = session_->modelBatch();
  } catch (const std::exception& e) {
    Q_EMIT session_->errorOccurred(QString::fromUtf8(e.what()));
    return;
  }
  runner_->run(batch, views_.attention->layerBox()->value(), views_.attention->headBox()->value(), analyseRow);
}

void ModelController::connectSession() {
  connect(session_, &Session::batchChanged, this, [this] {
    if (!runner_->hasModel() || !session_->hasBatch()) return;
    if (const QString problem = modelTokenizerProblem(runner_->spec()); !problem.isEmpty()) {
      Q_EMIT statusMessage(problem, 30000); // the tokenizer changed under a loaded builtin:tiny
      return;
    }
    runOnBatch(session_->batchRow());
  });
  connect(session_, &Session::modelChanged, this, [this](const QString& spec) {
    if (spec.isEmpty()) return;
    if (const QString problem = modelTokenizerProblem(spec); !problem.isEmpty()) {
      Q_EMIT statusMessage(problem, 30000);
      if (!runner_->hasModel()) showNoModel();
      session_->setModelSpec(QString()); // refused: choosing the model again retries
      return;
    }
    runner_->load(spec);
  });
  // The teaching step on -100 asks for the selected row's measured lessons (Session::rowLessons).
  connect(session_, &Session::rowLessonsRequested, this, [this] {
    lessonsWanted_ = true;
    runLessons();
  });
}

void ModelController::runLessons() {
  if (!lessonsWanted_ || !runner_->hasModel() || !session_->hasBatch()) return;
  if (!modelTokenizerProblem(runner_->spec()).isEmpty()) return; // builtin:tiny under another tokenizer
  try {
    runner_->runLessons(session_->modelBatch(), session_->batchRow());
  } catch (const std::exception& e) {
    Q_EMIT session_->errorOccurred(QString::fromUtf8(e.what()));
  }
}

// The attention view's layer/head/mode controls: what the grid shows and which pass runs.
void ModelController::connectAttentionControls() {
  AttentionView* pane = views_.attention;
  connect(pane->modeBox(), &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i == 1 && !runner_->hasModel()) {
      Q_EMIT statusMessage(tr("Load a model (Model menu) to see real attention probabilities."), 8000);
      views_.attention->grid()->setProbabilities({}, {});
    } else if (i == 1) {
      runOnBatch();
    } else {
      views_.attention->grid()->setProbabilities({}, {});
    }
  });
  // The layer, its layout or the window box: what the grid and softmax view draw.
  connect(pane, &AttentionView::layerAttentionChanged, this, &ModelController::applyLayerAttention);
  connect(pane->layerBox(), &QSpinBox::valueChanged, this, [this] {
    // The softmax view's scores belong to the layer they were captured from: rerun for the new one.
    if (!runner_->hasModel() || !session_->hasBatch()) return;
    views_.softmax->setModelScores({}, {});
    runOnBatch();
  });
  connect(pane->headBox(), &QSpinBox::valueChanged, this, [this] {
    if (runner_->hasModel() && views_.attention->modeBox()->currentIndex() == 1) runOnBatch();
  });
}

void ModelController::connectRunner() {
  connect(runner_, &ModelRunner::modelLoaded, this, [this](const QString& d) {
    modelLabel_->setText(d);
    layoutConfig_.clear(); // the model's own layers from now on
    views_.compare->setModel(runner_->model(), runner_->modelLock(), d);
    views_.attention->layerPicker()->setModel(*runner_->info());
    views_.attention->headBox()->setRange(0, std::max(0, runner_->heads() - 1));
    if (views_.attention->userWindow() > 0) // the window box's setting is set aside, not lost
      Q_EMIT statusMessage(tr("The model's layers set the window now; your window of %1 keys applies again "
                              "without a model.")
                               .arg(views_.attention->userWindow()),
                           15000);
    if (session_->hasBatch()) runOnBatch(session_->batchRow());
    runLessons(); // asked for before the model was there
  });
  connect(runner_, &ModelRunner::failed, this, [this](const QString& m) {
    if (!runner_->hasModel()) {
      showNoModel();
      views_.compare->setModel(nullptr, nullptr, {});
      if (layoutConfig_.isEmpty()) views_.attention->layerPicker()->setModel(ModelInfo{}); // a config's stays
    }
    Q_EMIT statusMessage(m == QLatin1String("cancelled") ? tr("forward pass cancelled") : m, 20000);
  });
  connect(runner_, &ModelRunner::finished, this, &ModelController::onModelRun);
  connect(runner_, &ModelRunner::lessonsFinished, this,
          [this](const LessonsRun& r) { session_->setRowLessons(r.row, r.lessons, r.error); });
}

// Loading reports in the status line; a forward pass also fills the progress bar, layer by layer,
// with a Cancel that stops it between layers.
void ModelController::connectRunProgress() {
  connect(runner_, &ModelRunner::runStarted, this, [this] {
    progress_->setValue(0);
    progress_->show();
    cancel_->setEnabled(true);
    cancel_->show();
  });
  connect(runner_, &ModelRunner::progress, this, [this](double f, const QString& t) {
    Q_EMIT statusMessage(t, 0);
    if (!progress_->isHidden()) progress_->setValue(int(std::clamp(f, 0.0, 1.0) * 1000));
  });
  auto done = [this] {
    progress_->hide();
    cancel_->hide();
  };
  connect(runner_, &ModelRunner::finished, this, done);
  connect(runner_, &ModelRunner::failed, this, done);
  connect(cancel_, &QPushButton::clicked, this, [this] {
    cancel_->setEnabled(false);
    runner_->cancel();
    Q_EMIT statusMessage(tr("cancelling after the current layer..."), 0);
  });
}

bool ModelController::loadLayerLayout(const QString& path, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why.contains(path) ? why : tr("%1: %2").arg(path, why); // the file named once
    return false;
  };
  if (runner_->hasModel())
    return fail(tr("a model is loaded and the layer picker shows its layers; a layout from a config.json is for "
                   "when no weights are loaded"));
  ModelInfo info;
  try {
    info = describeModelConfig(path.toStdString()); // the engine's parser, as loading the weights would read it
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  layoutConfig_ = path;
  showNoModel();
  views_.attention->layerPicker()->setModel(info); // draws the picked layer's band (layerAttentionChanged)
  Q_EMIT statusMessage(tr("Layer layout of %1: %2. No weights: the mask only.")
                           .arg(path, QString::fromStdString(layerAttentionSummary(info))),
                       20000);
  return true;
}

void ModelController::openLayerLayout(const QString& path) {
  QString error;
  if (loadLayerLayout(path, &error)) return;
  QMessageBox box(QMessageBox::Warning, tr("Layer layout"), tr("Could not show a layer layout.\n\n%1").arg(error),
                  QMessageBox::Ok, window_);
  box.setObjectName(QStringLiteral("layerLayoutError"));
  box.exec();
}

void ModelController::showNoModel() {
  modelLabel_->setText(layoutConfig_.isEmpty()
                           ? tr("no model")
                           : tr("no model (layers of %1)").arg(QFileInfo(layoutConfig_).fileName()));
}

void ModelController::applyLayerAttention() {
  const ShownLayer shown = views_.attention->shownLayer();
  const QString text = QString::fromStdString(shown.text);
  views_.attention->grid()->setLayerAttention(shown.window, text);
  views_.softmax->setLayerAttention(shown.window, shown.softcap, text);
}

void ModelController::onModelRun(const ModelRun& run) {
  const QString label = tr("layer %1 head %2").arg(run.layer).arg(run.head);
  views_.loss->setModelNll(run.output.perTokenNll, modelLabel_->text());
  const int r = session_->batchRow();
  if (run.reportRow == r) views_.loss->setRowReport(run.rowReport, run.reportError);
  const int64_t T = session_->batch().length();
  std::vector<float> probs = rowAttention(run, r, T);
  // The softmax view: the engine's real pre-softmax scores (before the mask), or none (never a score
  // read back from the probabilities: ln p is not the score, and the mask cannot be taken off it).
  std::vector<float> scores = rowScores(run, r, T);
  views_.softmax->setModelScores(std::move(scores), modelScoresLabel(run, T));
  if (!probs.empty() && views_.attention->modeBox()->currentIndex() == 1)
    views_.attention->grid()->setProbabilities(std::move(probs), label);
  Q_EMIT statusMessage(tr("forward pass done (%1, loss %2)")
                           .arg(QString::fromStdString(run.output.device))
                           .arg(run.output.loss, 0, 'f', 4),
                       8000);
}

} // namespace maskscope
