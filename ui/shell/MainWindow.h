// The main window composes the app: the pipeline toolbar, the views of the view registry
// (ui/shell/ViewRegistry.h: token strip and attention grid in the centre, the dataset browser and the
// other views in docks), the dataset and model controllers, and the menus. Layout and choices persist
// (QSettings) when the window is persistent (the app), not in snapshots and tests. It never edits user files.
#pragma once
#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <vector>

class QComboBox;
class QProgressDialog;
class QDockWidget;
class QLabel;
class QLineEdit;
class QTreeView;
class QMenu;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;

namespace maskscope {

class AuditReportRunner;
class AttentionGridCanvas;
class AttentionView;
class CompareView;
class DatasetController;
class FrameworkPicker;
class DatasetView;
class LintView;
class LossView;
class ModelController;
class ModelRunner;
class PipelineToolbar;
class Session;
class SoftmaxView;
class TeachingView;
class TokenStripView;
class TokenizerChoiceDialog;
class TokenizerPicker;
class WindowLayout;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(Session* session, QWidget* parent = nullptr, bool persistent = false);
  ~MainWindow() override;

  // The dataset browser's widgets and state (ui/dataset).
  QTreeView* conversationList() const; // its model: the rows the filters leave (DatasetRowModel)
  QLineEdit* searchBox() const;
  QSpinBox* minMessagesBox() const;
  QSpinBox* minTokensBox() const;
  QComboBox* findingFilterBox() const;
  int visibleRowCount() const;
  std::vector<int> visibleRows() const; // the session rows the list shows, ascending
  bool tokenLengthsPending() const;     // the token-length filter's worker is measuring
  bool searchPending() const;           // the search's pass over the file is running
  // The pipeline pickers (ui/shell/PipelineToolbar).
  QComboBox* collatorBox() const;
  QComboBox* templateBox() const;
  TokenizerPicker* tokenizerBox() const;
  // The views the window wires together (any view by name: view()).
  TokenStripView* tokenStrip() const { return strip_; }
  AttentionGridCanvas* attentionGrid() const;
  AttentionView* attentionView() const { return attentionView_; } // the grid with its legend and layer controls
  SoftmaxView* softmaxView() const { return softmax_; }
  LossView* lossView() const { return loss_; }
  LintView* lintView() const { return lint_; }
  CompareView* compareView() const { return compare_; }
  TeachingView* teachingView() const { return teaching_; }
  QLabel* summaryLabel() const { return summary_; }
  // The error shown in the centre when the selected row cannot be shown ("" while it shows).
  QString centreErrorText() const;
  // The model (ui/model): its runner, the forward pass's progress bar and Cancel button.
  ModelRunner* modelRunner() const;
  QProgressBar* runProgressBar() const;
  QPushButton* cancelRunButton() const;
  // Why modelSpec cannot run on the session's tokenizer ("" when it can): builtin:tiny needs builtin:demo.
  QString modelTokenizerProblem(const QString& modelSpec) const;
  // Model > Layer layout from config.json (ModelController::loadLayerLayout).
  bool loadLayerLayout(const QString& path, QString* error = nullptr);
  void openLayerLayout(const QString& path);
  QString layerLayoutFile() const; // "" unless a config's layout is shown
  QStringList recentFiles() const { return recent_; }

  // A view of the registry by name (nullptr for an unknown name), and its dock (nullptr in the centre).
  QWidget* view(const QString& name) const;
  QDockWidget* dock(const QString& name) const;
  // Brings a view of the registry to the front (its dock raised, or the centre view focused).
  // grow: a bottom dock brought forward grows to show its whole view where the room allows (a
  // teaching step passes false: the step text and its buttons stay where they are).
  void showView(const QString& name, bool grow = true);
  // Docks every view where it starts (View > Reset layout): areas, tabs and sizes of a first run.
  void resetLayout();
  // True once the first-run (or reset) dock sizes have been applied (a queued call after show).
  bool dockSizesApplied() const;
  // Presenter mode: type, token chips and grid labels 1.6x, the dataset dock hidden, the lint view
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
  // A batch dump whose ids the tokenizer in use does not fit (Session::needsDumpTokenizer) opens the
  // tokenizer question (TokenizerChoiceDialog, window-modal, not blocking); snapshots turn it off.
  void setAsksForTokenizer(bool on) { asksForTokenizer_ = on; }
  void askForDumpTokenizer();
  TokenizerChoiceDialog* tokenizerDialog() const;
  // Opens a dataset, batch dump or model folder (as the command line and drag-and-drop do); a .yml or
  // .yaml file is a framework config (openFrameworkConfig).
  bool openPath(const QString& path);
  // File > Open framework config: a framework spec JSON, a TRL SFTConfig JSON or a framework's YAML
  // config (Axolotl, LLaMA-Factory) becomes the collator: the picker, the form and every view follow.
  // false and *error (naming the file and key) when it is not one or cannot be used.
  bool openFrameworkConfig(const QString& path, QString* error = nullptr);
  // The framework picker beside the collator presets (ui/widgets/FrameworkPicker).
  FrameworkPicker* frameworkPicker() const;
  // The status bar's line naming the framework, version and options of the batch ("" without one).
  QString frameworkStatusText() const;
  // Export the named view (or "window") to PNG/SVG by extension, or the HTML report (.html).
  bool exportView(const QString& view, const QString& path, QString* error = nullptr);
  // File > Export training template: the current chat template with {% generation %} around each
  // reply and its closing token (core's makeTrainingTemplate, verified before writing). Writes
  // nothing and says why when the template has markers already or cannot be patched.
  bool exportTrainingTemplate(const QString& path, QString* error = nullptr);
  // File > Export lint findings: the lint view's findings (every one of a whole-dataset run) as
  // lint --findings-out writes them (.tsv, .csv or .jsonl), to send back to a contributor.
  bool exportFindings(const QString& path, QString* error = nullptr);
  // File > Export audit report: the `lint --report` page of the open dataset with the session's
  // settings, written off the UI thread with a progress dialog whose Cancel stops it (nothing is
  // written then). False, with why, when it cannot start (no dataset, a dump, a framework spec).
  bool exportAuditReport(const QString& path, QString* error = nullptr);
  AuditReportRunner* auditRunner() const { return audit_; } // null before the first export
  QProgressDialog* auditProgressDialog() const;             // null when no export runs

protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  void createViews();
  void buildCentre();
  void giveGridTheCentre();
  void buildStatusBar();
  void connectSession();
  void buildMenus(); // MainWindowMenus.cpp
  void buildFileMenu();
  void buildNavigateMenu();
  void buildModelMenu();
  void buildAttentionMenu(QMenu* view);
  void buildViewMenu();
  void buildHelpMenu();
  void openTeaching();
  void showStatus(const QString& text, int timeoutMs); // empty text clears the status line
  void updateSummary();
  void updateFrameworkStatus();
  void updateCentreError();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void restoreSettings();
  void saveSettings();

  Session* session_;
  bool persistent_ = false;
  PipelineToolbar* toolbar_ = nullptr;
  WindowLayout* layout_ = nullptr;
  DatasetController* dataset_ = nullptr;
  ModelController* model_ = nullptr;
  QLabel* summary_ = nullptr;
  QSplitter* centreSplit_ = nullptr; // the centre views (token strip, attention grid)
  QLabel* frameworkStatus_ = nullptr;
  QLabel* centreError_ = nullptr;
  QString pendingError_; // the session's last error, until the next batchChanged
  DatasetView* datasetView_ = nullptr;
  TokenStripView* strip_ = nullptr;
  AttentionView* attentionView_ = nullptr;
  SoftmaxView* softmax_ = nullptr;
  LossView* loss_ = nullptr;
  LintView* lint_ = nullptr;
  AuditReportRunner* audit_ = nullptr;
  QPointer<QProgressDialog> auditProgress_;
  CompareView* compare_ = nullptr;
  TeachingView* teaching_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QStringList recent_;
  double baseFontPt_ = 0;
  QHash<QString, QWidget*> views_; // by registry name
  bool shownOnce_ = false;
  bool presenter_ = false;
  bool fitsScreen_ = true;
  bool asksForTokenizer_ = true;
  QPointer<TokenizerChoiceDialog> tokenizerDialog_;
  QRect normalGeometry_; // before presenter mode
  QSize initialSize_;    // the constructor's size (the screen's, at most)
};

} // namespace maskscope
