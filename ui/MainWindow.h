// The main window: the pipeline pickers (tokenizer, template, collator) and the views of the view
// registry (ui/ViewRegistry.h): the token strip and attention grid in the centre, the dataset
// browser and the panels (lint, softmax, loss, compare, teaching) in docks. Layout and choices persist (QSettings) when
// the window is persistent (the app), not in snapshots and tests. It never edits user files.
#pragma once
#include <QFutureWatcher>
#include <QHash>
#include <QMainWindow>
#include <QStringList>
#include <vector>

class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace maskscope {

class AttentionGridView;
class AttentionPane;
class ComparePanel;
class LintPanel;
class LossView;
class ModelRunner;
class Session;
class SoftmaxView;
class TeachingPanel;
class TokenStripView;
class TokenizerPicker;
struct ModelRun;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(Session* session, QWidget* parent = nullptr, bool persistent = false);
  ~MainWindow() override;

  QListWidget* conversationList() const { return list_; }
  QLineEdit* searchBox() const { return filter_; }
  QSpinBox* minMessagesBox() const { return minMessages_; }
  QSpinBox* minTokensBox() const { return minTokens_; }
  QComboBox* findingFilterBox() const { return findingFilter_; }
  QComboBox* collatorBox() const { return collatorBox_; }
  QComboBox* templateBox() const { return templateBox_; }
  TokenizerPicker* tokenizerBox() const { return tokenizerBox_; }
  // Why modelSpec cannot run on the session's tokenizer ("" when it can): builtin:tiny needs builtin:demo.
  QString modelTokenizerProblem(const QString& modelSpec) const;
  TokenStripView* tokenStrip() const { return strip_; }
  AttentionGridView* attentionGrid() const { return grid_; }
  AttentionPane* attentionPane() const { return attentionPane_; } // the grid with its legend and layer controls
  // The error shown in the centre when the selected row cannot be shown ("" while it shows).
  QString centreErrorText() const;
  SoftmaxView* softmaxView() const { return softmax_; }
  LossView* lossView() const { return loss_; }
  LintPanel* lintPanel() const { return lint_; }
  ComparePanel* comparePanel() const { return compare_; }
  TeachingPanel* teachingPanel() const { return teaching_; }
  QLabel* summaryLabel() const { return summary_; }
  // The forward pass's progress (status bar, shown while a pass runs) and its Cancel button.
  QProgressBar* runProgressBar() const { return runProgress_; }
  QPushButton* cancelRunButton() const { return cancelRun_; }
  ModelRunner* modelRunner() const { return model_; }
  QStringList recentFiles() const { return recent_; }

  // A view of the registry by name (nullptr for an unknown name), and its dock (nullptr in the centre).
  QWidget* view(const QString& name) const;
  QDockWidget* dock(const QString& name) const;
  // Brings a view of the registry to the front (its dock raised, or the centre view focused).
  void showView(const QString& name);
  // Docks every view where it starts (View > Reset layout): areas, tabs and sizes of a first run.
  void resetLayout();
  // True once the first-run (or reset) dock sizes have been applied (a queued call after show).
  bool dockSizesApplied() const { return dockSizesApplied_; }
  // Presenter mode: type, token chips and grid labels 1.6x, the dataset dock hidden, the lint panel
  // folded to its summary line and the bottom docks untitled (the grid gets the height of a
  // 1024 x 768 projector), the window filling its screen's available geometry (leaving it restores
  // the window's geometry and the docks).
  void setPresenterMode(bool on);
  bool presenterMode() const { return presenter_; }
  // Snapshots keep the size they are asked for: no fitting to the (off-screen) screen.
  void setFitsScreen(bool on) { fitsScreen_ = on; }
  // Shrinks (fill: grows) the window, frame included, to its screen's available geometry.
  void fitToScreen(bool fill);
  void setDarkTheme(bool dark);
  // Opens a dataset, batch dump or model folder (as the command line and drag-and-drop do).
  bool openPath(const QString& path);
  // Export the named view (or "window") to PNG/SVG by extension, or the HTML report (.html).
  bool exportView(const QString& view, const QString& path, QString* error = nullptr);
  // File > Export training template: the current chat template with {% generation %} around each
  // reply and its closing token (core's makeTrainingTemplate, verified before writing). Writes
  // nothing and says why when the template has markers already or cannot be patched.
  bool exportTrainingTemplate(const QString& path, QString* error = nullptr);
  // Model > Layer layout from config.json: the layer picker (and so the grid's band and the softmax
  // view's soft-cap) follows a config.json's layers (or a model folder's) without loading weights,
  // through the engine's parser. Refused while a model is loaded (its layers are shown). false with
  // *error naming the file when it cannot be read; openLayerLayout shows that in a message box.
  bool loadLayerLayout(const QString& path, QString* error = nullptr);
  void openLayerLayout(const QString& path);
  QString layerLayoutFile() const { return layoutConfig_; } // "" unless a config's layout is shown
  int visibleRowCount() const;
  // The token-length filter measures every row once per dataset and tokenizer/template, in a worker.
  bool tokenLengthsPending() const { return lengthsPending_; }

protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  void buildToolbar();
  void createViews();
  void buildCentre();
  void arrangeDocks();
  void applyDefaultDockSizes(QDockWidget* front = nullptr); // front: the bottom tab just brought forward
  void foldBottomDocks(bool on); // presenter mode: lint to its summary line, bottom docks untitled
  void connectSession();
  void connectDatasetBrowser();
  void connectPipelineControls();
  void connectModel();
  void connectRunProgress();
  void applyLayerAttention(); // the picked layer's window and soft-cap into the grid and softmax view
  void buildMenus();
  void buildFileMenu();
  void buildViewMenu();
  void fillConversationList();
  void applyFilter();
  void startTokenLengths();
  void cancelTokenLengths();
  void updateSummary();
  void updateCentreError();
  void syncPipelineControls();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void restoreSettings();
  void saveSettings();
  void onModelRun(const ModelRun& run);
  void showNoModel(); // the status bar's model label without a model (a config's layout named)

  Session* session_;
  bool persistent_ = false;
  QListWidget* list_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QSpinBox* minMessages_ = nullptr;
  QSpinBox* minTokens_ = nullptr;
  QComboBox* findingFilter_ = nullptr;
  QComboBox* collatorBox_ = nullptr;
  QComboBox* templateBox_ = nullptr;
  TokenizerPicker* tokenizerBox_ = nullptr;
  QSpinBox* batchSize_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* centreError_ = nullptr;
  QString pendingError_; // the session's last error, until the next batchChanged
  QString layoutConfig_; // the config.json whose layer layout the picker shows without weights
  QLabel* modelLabel_ = nullptr;
  QProgressBar* runProgress_ = nullptr;
  QPushButton* cancelRun_ = nullptr;
  TokenStripView* strip_ = nullptr;
  AttentionPane* attentionPane_ = nullptr;
  AttentionGridView* grid_ = nullptr;
  SoftmaxView* softmax_ = nullptr;
  LossView* loss_ = nullptr;
  LintPanel* lint_ = nullptr;
  ComparePanel* compare_ = nullptr;
  TeachingPanel* teaching_ = nullptr;
  ModelRunner* model_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QStringList recent_;
  std::vector<int> tokenLengths_; // per dataset row, computed (in a worker) when the length filter is first used
  QString lengthsKey_;            // tokenizer + template the lengths were (or are being) measured with
  quint64 lengthsGeneration_ = 0; // results of an older generation (dataset or pipeline changed) are dropped
  bool lengthsPending_ = false;
  QFutureWatcher<std::vector<int>>* lengthsWatcher_ = nullptr;
  double baseFontPt_ = 0;
  QHash<QString, QWidget*> views_; // by registry name
  QList<QDockWidget*> docks_;      // in registry order
  bool docksArranged_ = false;
  bool shownOnce_ = false;
  bool presenter_ = false;
  bool dockSizesApplied_ = false;
  bool fitsScreen_ = true;
  QRect normalGeometry_; // before presenter mode
  QSize initialSize_;    // the constructor's size (the screen's, at most)
  QRect screenRoom() const;
};

} // namespace maskscope
