// The model's side of the window: loads models the session names (refusing builtin:tiny on another
// tokenizer), runs a forward pass per batch and per layer/head pick, feeds the grid, softmax, loss and
// compare views, shows progress with a Cancel in the status bar, and the layer layout of a config.json.
#pragma once
#include <QObject>
#include <QString>

class QLabel;
class QProgressBar;
class QPushButton;
class QWidget;

namespace maskscope {

class AttentionView;
class CompareView;
class LossView;
class ModelRunner;
class Session;
class SoftmaxView;
struct ModelRun;

// The views a forward pass feeds.
struct ModelViews {
  AttentionView* attention = nullptr;
  SoftmaxView* softmax = nullptr;
  LossView* loss = nullptr;
  CompareView* compare = nullptr;
};

class ModelController : public QObject {
  Q_OBJECT
public:
  // window: parent of the status-bar widgets and of message boxes.
  ModelController(Session* session, const ModelViews& views, QWidget* window);

  ModelRunner* runner() const { return runner_; }
  // The status bar's widgets: the model's name, the forward pass's progress and its Cancel button.
  QLabel* modelLabel() const { return modelLabel_; }
  QProgressBar* progressBar() const { return progress_; }
  QPushButton* cancelButton() const { return cancel_; }
  // Why modelSpec cannot run on the session's tokenizer ("" when it can): builtin:tiny needs builtin:demo.
  QString modelTokenizerProblem(const QString& modelSpec) const;
  // Model > Layer layout from config.json: the layer picker (and so the grid's band and the softmax
  // view's soft-cap) follows a config.json's layers (or a model folder's) without loading weights.
  // Refused while a model is loaded (its layers are shown). false with *error naming the file when
  // it cannot be read; openLayerLayout shows that in a message box.
  bool loadLayerLayout(const QString& path, QString* error = nullptr);
  void openLayerLayout(const QString& path);
  QString layerLayoutFile() const { return layoutConfig_; } // "" unless a config's layout is shown

Q_SIGNALS:
  void statusMessage(const QString& text, int timeoutMs); // timeoutMs 0: until replaced

private:
  void connectSession();
  void connectAttentionControls();
  void connectRunner();
  void connectRunProgress();
  void applyLayerAttention(); // the picked layer's window and soft-cap into the grid and softmax view
  void runOnBatch(int analyseRow = -1);
  void runLessons(); // the selected row's masking lessons, once a view asked (Session::requestRowLessons)
  void onModelRun(const ModelRun& run);
  void showNoModel(); // the model label without a model (a config's layout named)

  Session* session_;
  ModelViews views_;
  QWidget* window_;
  ModelRunner* runner_ = nullptr;
  QLabel* modelLabel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QString layoutConfig_;       // the config.json whose layer layout the picker shows without weights
  bool lessonsWanted_ = false; // a view asked for the row's lessons: measured again on model load
};

} // namespace maskscope
