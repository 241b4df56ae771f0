// The main window's composition: toolbar, views (from the view registry) in the centre and in docks,
// the controllers that drive them, the summary line and the exports. Menus: MainWindowMenus.cpp;
// docks and screen fitting: WindowLayout; the dataset list: DatasetController; the model: ModelController.
#include "ui/shell/MainWindow.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/frameworks/PreparedFramework.h"
#include "core/mask/RowFacts.h"
#include "core/table/GradedText.h"
#include "core/template/ChatTemplate.h"
#include "core/template/TrainingTemplate.h"
#include "ui/dataset/DatasetController.h"
#include "ui/dataset/DatasetView.h"
#include "ui/model/ModelController.h"
#include "ui/model/ModelRunner.h"
#include "ui/shell/CaptureOpening.h"
#include "ui/shell/Export.h"
#include "ui/shell/HtmlReport.h"
#include "ui/shell/PipelineToolbar.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/shell/WindowLayout.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/AttentionView.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/loss/LossView.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/FrameworkPicker.h"
#include "ui/widgets/Palette.h"
#include "ui/widgets/TokenizerChoiceDialog.h"
#include "ui/widgets/TokenizerPicker.h"
#include "ui/widgets/WheelGuard.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
#include <utility>

namespace maskscope {

namespace {
constexpr double kPresenterScale = 1.6; // presenter mode's type size: text, chips, grid labels

// Calls back when the watched widget is resized (the status bar: the framework label's share of it).
class ResizeWatcher : public QObject {
public:
  ResizeWatcher(QWidget* watched, std::function<void()> onResize) : QObject(watched), onResize_(std::move(onResize)) {
    watched->installEventFilter(this);
  }
  bool eventFilter(QObject*, QEvent* e) override {
    if (e->type() == QEvent::Resize) onResize_();
    return false;
  }

private:
  std::function<void()> onResize_;
};
} // namespace

MainWindow::MainWindow(Session* session, QWidget* parent, bool persistent)
    : QMainWindow(parent), session_(session), persistent_(persistent) {
  setWindowTitle(tr("maskscope"));
  setObjectName(QStringLiteral("mainWindow"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  new WheelGuard(this); // before the boxes are made: the wheel over an unfocused box scrolls its panel
  // The first window fits the screen it opens on (a 1024 x 768 projector, a laptop at 200 %) and
  // takes 85 % of a large one (1632 x 918 of 1920 x 1080), centred there once shown (showEvent).
  if (const QScreen* s = QGuiApplication::primaryScreen())
    resize(
        (s->availableGeometry().size() * 0.85).expandedTo(QSize(1280, 820)).boundedTo(s->availableGeometry().size()));
  else
    resize(1280, 820);
  initialSize_ = size();
  baseFontPt_ = QApplication::font().pointSizeF();

  toolbar_ = new PipelineToolbar(session_, persistent_, this);
  toolbar_->addTo(this);
  connect(toolbar_->frameworkPicker(), &FrameworkPicker::optionsRequested, this,
          [this] { showView(QStringLiteral("framework")); });
  layout_ = new WindowLayout(this);
  createViews();
  buildCentre();
  layout_->arrangeDocks();
  connectSession(); // before the dataset controller: a new dataset clears the status line first
  dataset_ = new DatasetController(session_, datasetView_, lint_, this);
  connect(dataset_, &DatasetController::statusMessage, this, &MainWindow::showStatus);
  model_ = new ModelController(session_, ModelViews{attentionView_, softmax_, loss_, compare_}, this);
  connect(model_, &ModelController::statusMessage, this, &MainWindow::showStatus);
  buildStatusBar();
  buildMenus();
  dataset_->fillList();
  setWindowTitle(tr("maskscope \u2014 %1").arg(session_->datasetSpec()));
  toolbar_->sync();
  updateSummary();
  updateFrameworkStatus(); // a session set up before this window (snapshot, the command line)
  if (persistent_) restoreSettings();
  // A dump named on the command line opened before this window: ask once the window is up.
  if (session_->needsDumpTokenizer())
    QTimer::singleShot(0, this, [this] {
      if (asksForTokenizer_ && session_->needsDumpTokenizer()) askForDumpTokenizer();
    });
}

MainWindow::~MainWindow() {
  // The layout filters the window's and the centre's events: it stops before ~QWidget hides the
  // children (the half-destroyed window must not be asked for its centre). It stays, for late calls.
  layout_->stopWatching();
  // Presenter mode enlarged the application's font: a window closed in it gives the normal size back.
  if (presenter_) {
    QFont f = QApplication::font();
    f.setPointSizeF(baseFontPt_);
    QApplication::setFont(f);
  }
}

// Every view of the registry, each in a dock of its area or kept for the centre.
void MainWindow::createViews() {
  const ViewHost host{session_, this};
  for (const ViewSpec& v : viewRegistry()) views_.insert(v.name, v.create(host));
  layout_->createDocks(views_);
  // The views the window wires to each other and to the session.
  datasetView_ = static_cast<DatasetView*>(view(QStringLiteral("dataset")));
  attentionView_ = static_cast<AttentionView*>(view(QStringLiteral("attention")));
  layout_->setCentreGrowth([this] { return attentionView_->foldedLegendHeight(); });
  strip_ = static_cast<TokenStripView*>(view(QStringLiteral("tokens")));
  softmax_ = static_cast<SoftmaxView*>(view(QStringLiteral("softmax")));
  loss_ = static_cast<LossView*>(view(QStringLiteral("loss")));
  lint_ = static_cast<LintView*>(view(QStringLiteral("lint")));
  compare_ = static_cast<CompareView*>(view(QStringLiteral("compare")));
  teaching_ = static_cast<TeachingView*>(view(QStringLiteral("teaching")));
  // The lint view without findings is one line: its dock gives the rest to the strip and grid.
  layout_->setQuietView(lint_->quiet() ? lint_ : nullptr);
  connect(lint_, &LintView::quietChanged, this, [this](bool quiet) { layout_->setQuietView(quiet ? lint_ : nullptr); });
  // Closing the teaching panel ends its step's BERT aside (the strip shows the batch's own chips
  // again). Judged once the event loop runs: a step re-docks the panel (hidden, then shown again).
  if (QDockWidget* steps = layout_->dock(QStringLiteral("teaching")))
    connect(steps, &QDockWidget::visibilityChanged, this, [this, steps](bool visible) {
      if (!visible)
        QTimer::singleShot(0, this, [this, steps] {
          if (steps->isHidden()) session_->setMaskedLmAside(false);
        });
    });
}

// Centre: the summary, then the centre views (token strip, attention grid) in a splitter; each gets
// an equal share, the grid stays square.
void MainWindow::buildCentre() {
  auto* centre = new QWidget(this);
  auto* cl = new QVBoxLayout(centre);
  cl->setContentsMargins(4, 4, 4, 4);
  summary_ = new QLabel(centre);
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  cl->addWidget(summary_);
  // A row that cannot be shown (a template error, a collator error) says so here, where the eye is,
  // not only in the status bar; hidden while the row shows.
  centreError_ = new QLabel(centre);
  centreError_->setObjectName(QStringLiteral("centreError"));
  centreError_->setWordWrap(true);
  centreError_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  centreError_->hide();
  cl->addWidget(centreError_);
  auto* split = centreSplit_ = new QSplitter(Qt::Vertical, centre);
  for (const ViewSpec& v : viewRegistry())
    if (v.area == Qt::NoDockWidgetArea) {
      split->addWidget(view(v.name));
      split->setStretchFactor(split->count() - 1, 1);
    }
  cl->addWidget(split, 1);
  setCentralWidget(centre);
}

void MainWindow::buildStatusBar() {
  auto* readOnly = new QLabel(tr("Read-only: maskscope never edits your files"), this);
  readOnly->setObjectName(QStringLiteral("readOnlyNotice"));
  readOnly->setToolTip(readOnly->text());
  readOnly->setContentsMargins(12, 0, 12, 0); // apart from the message and the model label beside it
  // Which framework, version and options built the batch, for as long as one does.
  frameworkStatus_ = new QLabel(this);
  frameworkStatus_->setObjectName(QStringLiteral("frameworkStatus"));
  frameworkStatus_->hide();
  statusBar()->addPermanentWidget(frameworkStatus_);
  new ResizeWatcher(statusBar(), [this] {
    if (!frameworkStatus_->isHidden()) updateFrameworkStatus(); // its share of the new width
  });
  statusBar()->addPermanentWidget(readOnly);
  statusBar()->addPermanentWidget(model_->modelLabel());
  statusBar()->addPermanentWidget(model_->progressBar());
  statusBar()->addPermanentWidget(model_->cancelButton());
}

void MainWindow::connectSession() {
  connect(session_, &Session::datasetChanged, this, [this] {
    showStatus(QString(), 0); // a message about the previous file is stale now
    setWindowTitle(tr("maskscope \u2014 %1").arg(session_->datasetSpec()));
    toolbar_->sync();
  });
  connect(session_, &Session::batchChanged, this, &MainWindow::updateSummary);
  connect(session_, &Session::batchChanged, this, &MainWindow::updateFrameworkStatus);
  connect(session_, &Session::pipelineChanged, this, &MainWindow::updateFrameworkStatus);
  connect(session_, &Session::errorOccurred, this, [this](const QString& m) {
    showStatus(m, 15000);
    pendingError_ = m; // a batch that failed to build reports here just before batchChanged
  });
  connect(session_, &Session::batchChanged, this, &MainWindow::updateCentreError);
  connect(session_, &Session::dumpTokenizerNeeded, this, [this] {
    QTimer::singleShot(0, this, [this] {
      if (asksForTokenizer_ && session_->needsDumpTokenizer()) askForDumpTokenizer();
    });
  });
  updateCentreError();
}

void MainWindow::showStatus(const QString& text, int timeoutMs) {
  if (text.isEmpty())
    statusBar()->clearMessage();
  else
    statusBar()->showMessage(text, timeoutMs);
}

QWidget* MainWindow::view(const QString& name) const { return views_.value(name); }
QDockWidget* MainWindow::dock(const QString& name) const { return layout_->dock(name); }
QTreeView* MainWindow::conversationList() const { return datasetView_->list(); }
QLineEdit* MainWindow::searchBox() const { return datasetView_->searchBox(); }
QSpinBox* MainWindow::minMessagesBox() const { return datasetView_->minMessagesBox(); }
QSpinBox* MainWindow::minTokensBox() const { return datasetView_->minTokensBox(); }
QComboBox* MainWindow::findingFilterBox() const { return datasetView_->findingFilterBox(); }
int MainWindow::visibleRowCount() const { return dataset_->visibleRowCount(); }
bool MainWindow::tokenLengthsPending() const { return dataset_->tokenLengthsPending(); }
std::vector<int> MainWindow::visibleRows() const { return dataset_->visibleRows(); }
bool MainWindow::searchPending() const { return dataset_->searchPending(); }
QComboBox* MainWindow::collatorBox() const { return toolbar_->collatorBox(); }
QComboBox* MainWindow::templateBox() const { return toolbar_->templateBox(); }
TokenizerPicker* MainWindow::tokenizerBox() const { return toolbar_->tokenizerBox(); }
FrameworkPicker* MainWindow::frameworkPicker() const { return toolbar_->frameworkPicker(); }
QString MainWindow::frameworkStatusText() const {
  return frameworkStatus_->isHidden() ? QString() : frameworkStatus_->toolTip();
}
AttentionGridCanvas* MainWindow::attentionGrid() const { return attentionView_->grid(); }
ModelRunner* MainWindow::modelRunner() const { return model_->runner(); }
QProgressBar* MainWindow::runProgressBar() const { return model_->progressBar(); }
QPushButton* MainWindow::cancelRunButton() const { return model_->cancelButton(); }
QString MainWindow::modelTokenizerProblem(const QString& spec) const { return model_->modelTokenizerProblem(spec); }
bool MainWindow::loadLayerLayout(const QString& path, QString* error) { return model_->loadLayerLayout(path, error); }
void MainWindow::openLayerLayout(const QString& path) { model_->openLayerLayout(path); }
QString MainWindow::layerLayoutFile() const { return model_->layerLayoutFile(); }
bool MainWindow::dockSizesApplied() const { return layout_->dockSizesApplied(); }
void MainWindow::resetLayout() { layout_->resetLayout(); }
void MainWindow::fitToScreen(bool fill) { layout_->fitToScreen(fill); }

void MainWindow::updateCentreError() {
  QString error = std::exchange(pendingError_, QString());
  if (error.isEmpty() && !session_->hasBatch() && session_->selectedRow() >= 0 && !session_->isBatchDump()) {
    // The batch failed before this window listened (a window opened on a session): collate again
    // to get the reason.
    try {
      int row = 0;
      session_->collateWith(session_->collatorSpec(), &row);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
  }
  if (session_->hasBatch() || session_->selectedRow() < 0 || error.isEmpty()) {
    centreError_->hide();
    return;
  }
  centreError_->setText(tr("<b>Row %1 cannot be shown.</b><br>%2")
                            .arg(session_->selectedRow())
                            .arg(error.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
  centreError_->setStyleSheet(
      QStringLiteral("QLabel{border:2px solid %1;padding:8px;font-size:14px;}").arg(palette::warningText().name()));
  centreError_->show();
}

QString MainWindow::centreErrorText() const { return !centreError_->isHidden() ? centreError_->text() : QString(); }

void MainWindow::updateSummary() {
  if (!session_->hasBatch()) {
    summary_->setText(tr("No batch."));
    return;
  }
  const Batch& b = session_->batch();
  const int r = session_->batchRow();
  const RowFacts f = rowFacts(b, r); // core's counts: the same pads and graded tokens lint and loss report
  const int64_t real = f.real(), pads = f.pads, graded = f.gradedTotal(), gradedPads = f.graded[RolePad],
                attendedPads = f.attendedPads;
  const FrameworkRun* run = session_->frameworkRun();
  const QString what = session_->isBatchDump() ? tr("batch dump %1").arg(QFileInfo(session_->datasetSpec()).fileName())
                       : run                   ? QString::fromStdString(run->facts->description)
                             : QString::fromStdString(session_->pipeline()->collator().spec().describe());
  const bool prepared = run && session_->stage() == Session::Stage::Prepared;
  // The dataset list names a row by its file line: the header says that line, then the row of the batch.
  const long line = prepared || session_->isBatchDump() ? -1 : session_->selectedLine();
  const QString which = prepared    ? tr("Prepared row %1").arg(session_->selectedRow())
                        : line >= 0 ? tr("Line %1, row %2").arg(line).arg(r)
                                    : tr("Row %1").arg(r);
  QString text = tr("<b>%1</b> of a %2 x %3 batch (%4) &mdash; %5 tokens, %6 padding, <b>%7 graded</b>")
                     .arg(which)
                     .arg(b.batchSize())
                     .arg(b.length())
                     .arg(what.toHtmlEscaped())
                     .arg(real)
                     .arg(pads)
                     .arg(graded);
  const QString warn = palette::warningText().name();
  if (gradedPads)
    text += tr(" &mdash; <span style='color:%2'><b>&#9888; %1 pads graded</b></span>").arg(gradedPads).arg(warn);
  if (attendedPads)
    text += tr(" &mdash; <span style='color:%2'><b>&#9888; %1 pads attended</b></span>").arg(attendedPads).arg(warn);
  // A dump's tokenizer that does not fit is never silent: undecoded until one is chosen, or used as chosen.
  if (session_->isBatchDump() && !session_->dumpFit().fits)
    text += (session_->decodesDump()
                 ? tr("<br><span style='color:%3'><b>&#9888; %1 does not fit this dump</b> (%2): its ids are read "
                      "as the wrong tokens.</span>")
                 : tr("<br><span style='color:%3'><b>&#9888; ids shown undecoded</b>: %1 does not fit this dump "
                      "(%2). File &gt; Which tokenizer made this batch dump?</span>"))
                .arg(tokenizerDisplayName(session_->tokenizerSpec()).toHtmlEscaped(),
                     QString::fromStdString(session_->dumpFit().describe()).toHtmlEscaped(), warn);
  // A capture (docs/capture.md): which trainer, collator and versions built this batch.
  if (const QString capture = session_->isBatchDump() ? captureDescription(session_->datasetSpec()) : QString();
      !capture.isEmpty())
    text += tr("<br>Captured in the training run: <b>%1</b>").arg(capture.toHtmlEscaped());
  if (run && !run->facts->dropped.empty())
    text += tr(" &mdash; <span style='color:%2'>&#9888; %3 drops %1 rows</span>")
                .arg(run->facts->dropped.size())
                .arg(warn, QString::fromStdString(run->spec.framework));
  if (run && run->facts->assistantOnlyWithoutGeneration)
    text += tr(" &mdash; <span style='color:%1'><b>&#9888; %2 stops here: the template has no {% generation %}</b>"
               "</span>")
                .arg(warn, QString::fromStdString(run->spec.framework));
  // "Verify one batch": what the loss reads in this row, decoded (core/table's gradedTextOfRow).
  const Tokenizer* tok = session_->pipeline() ? &session_->pipeline()->tokenizer()
                         : run                ? run->tokenizer.get()
                                              : nullptr;
  QString gradedText = QString::fromStdString(gradedTextOfRow(b, r, tok));
  if (gradedText.size() > 240) gradedText = gradedText.left(240) + QStringLiteral("\u2026");
  // In the tooltip, not a line of its own: the header stays one line so the grid keeps its room at
  // 1024x768 and in presenter mode (the position table shows the same text per row).
  summary_->setToolTip(tr("Graded text of this row (what the loss reads): %1")
                           .arg(gradedText.isEmpty()
                                    ? tr("<i>nothing is graded</i>")
                                    : QStringLiteral("<code>%1</code>").arg(gradedText.toHtmlEscaped())));
  summary_->setText(text);
}

void MainWindow::showView(const QString& name, bool grow) {
  if (QDockWidget* d = dock(name)) {
    d->show();
    d->raise();
    // Once the raised tab is laid out: room for its whole view where the window has it.
    if (grow && layout_->dockSizesApplied()) QTimer::singleShot(0, this, [this, d] { layout_->growToShow(d); });
  } else if (QWidget* w = view(name)) {
    w->setFocus();
  }
}

void MainWindow::setPresenterMode(bool on) {
  if (on == presenter_) return;
  presenter_ = on;
  // The window's own geometry, taken before the type grows (the larger type's least size may grow the
  // window at once).
  if (on && fitsScreen_) normalGeometry_ = geometry();
  QFont f = QApplication::font();
  f.setPointSizeF(on ? baseFontPt_ * kPresenterScale : baseFontPt_);
  QApplication::setFont(f);
  // The pipeline bars are the presenter's controls, not what the class reads (the summary line
  // under them says what the batch is): they keep the normal type, so they share one row of a
  // 1024 px projector and that row's height goes to the grid.
  QFont normal = f;
  normal.setPointSizeF(baseFontPt_);
  for (QToolBar* bar : {static_cast<QToolBar*>(toolbar_), toolbar_->batchBar()}) bar->setFont(on ? normal : QFont());
  layout_->setTabBarFont(on ? normal : QFont()); // the dock tabs likewise: all of them in one row
  statusBar()->setFont(on ? normal : QFont());   // and the status line: its notices whole at 1024 px
  menuBar()->setFont(on ? normal : QFont());     // and the menus: the presenter's, their height the grid's
  for (AttentionGridCanvas* g : {attentionGrid(), compare_->gridA(), compare_->gridB()})
    g->setLabelScale(on ? kPresenterScale : 1.0);
  attentionView_->setPresenterScale(on ? kPresenterScale : 1.0); // the legend grows with the rest
  if (QDockWidget* d = dock(QStringLiteral("dataset"))) d->setVisible(!on);
  // The lint view shows its summary line only; the bottom docks may shrink to it.
  lint_->setCompact(on);
  layout_->foldBottomDocks(on ? lint_ : nullptr);
  if (auto* a = findChild<QAction*>(QStringLiteral("presenterAction"))) {
    QSignalBlocker block(a);
    a->setChecked(on);
  }
  teaching_->setPresenterChecked(on);
  // A projector shows the whole screen: presenter mode fills it; leaving it restores the window.
  if (!fitsScreen_) { // the window keeps its size (a snapshot's --size): only the centre is shared out
    if (on) QTimer::singleShot(0, this, [this] { giveGridTheCentre(); });
    return;
  }
  if (on) fitToScreen(true);
  // Once the layouts have the new type's least sizes (queued after their requests): the window's
  // own geometry back when leaving, then the height shared between the centre and the docks.
  QTimer::singleShot(0, this, [this, on] {
    if (layout()) layout()->activate(); // the least sizes of the new type, before sizing to them
    if (!on && normalGeometry_.isValid()) {
      setGeometry(normalGeometry_);
      fitToScreen(false);
    }
    layout_->applyDefaultDockSizes();
    if (on) giveGridTheCentre();
  });
}

// Presenter mode: the centre views above the grid (the token strip) get their least height (one row
// of chips, which scroll), the grid the rest of the centre.
void MainWindow::giveGridTheCentre() {
  QList<int> sizes = centreSplit_->sizes();
  if (sizes.size() < 2) return;
  int total = 0;
  for (int h : sizes) total += h;
  for (int i = 0; i + 1 < sizes.size(); ++i) {
    sizes[i] = centreSplit_->widget(i)->minimumSizeHint().height();
    total -= sizes[i];
  }
  sizes.last() = std::max(0, total);
  centreSplit_->setSizes(sizes);
}

void MainWindow::setDarkTheme(bool dark) {
  palette::setTheme(dark ? palette::Theme::Dark : palette::Theme::Light);
  setPalette(palette::qtPalette(palette::theme()));
  update();
  for (QWidget* w : findChildren<QWidget*>()) w->update();
  updateSummary();
}

TokenizerChoiceDialog* MainWindow::tokenizerDialog() const { return tokenizerDialog_; }

void MainWindow::askForDumpTokenizer() {
  // Asked whenever a dump is open (File > Which tokenizer: also after a choice, even a wrong one); the
  // automatic question (a dump the tokenizer does not fit, unless setAsksForTokenizer(false)) is asked
  // from the constructor and on dumpTokenizerNeeded.
  if (!session_->isBatchDump()) return;
  if (tokenizerDialog_) tokenizerDialog_->close();
  RenderOptions given;
  given.variables = session_->templateVariables();
  const QString dumpPath = session_->datasetSpec();
  auto* d = new TokenizerChoiceDialog(
      std::make_shared<const Batch>(session_->dumpBatch()), QFileInfo(dumpPath).fileName(), session_->tokenizerSpec(),
      session_->dumpFit(), TokenizerChoiceDialog::appCandidates(toolbar_->tokenizerBox()->recent()), given, this);
  d->setAttribute(Qt::WA_DeleteOnClose);
  connect(d, &QDialog::accepted, this, [this, d, dumpPath] {
    // The dump asked about is still the one open (another file may have been opened meanwhile).
    if (session_->isBatchDump() && session_->datasetSpec() == dumpPath && !d->chosenSpec().isEmpty())
      session_->chooseDumpTokenizer(d->chosenSpec());
  });
  tokenizerDialog_ = d;
  d->open();
}

void MainWindow::updateFrameworkStatus() {
  const FrameworkSpec* spec = session_->frameworkSpec();
  frameworkStatus_->setVisible(spec != nullptr);
  if (!spec) return;
  QString text = QString::fromStdString(spec->describe());
  if (spec->source != "inline") text += tr(" — %1").arg(QFileInfo(QString::fromStdString(spec->source)).fileName());
  if (const PreparedFramework* p = session_->preparedFramework())
    text += tr(" — %1 rows → %2 prepared").arg(p->facts().rowsIn).arg(p->facts().rowsPrepared);
  frameworkStatus_->setToolTip(text);
  // Elided to its share of the bar (a third, 120-420 px): the permanent labels beside it and the
  // messages left of them keep their room instead of being drawn over each other at 1024 px.
  const int room = std::clamp(statusBar()->width() / 3, 120, 420);
  frameworkStatus_->setText(frameworkStatus_->fontMetrics().elidedText(text, Qt::ElideMiddle, room));
}

bool MainWindow::openFrameworkConfig(const QString& path, QString* error) {
  QString why;
  auto keep = connect(session_, &Session::errorOccurred, this, [&why](const QString& m) { why = m; });
  bool ok = false;
  try {
    if (!isFrameworkSpec(path.toStdString()))
      why = tr("%1 is not a framework config: a JSON spec needs \"framework\"; YAML configs are Axolotl's or "
               "LLaMA-Factory's")
                .arg(path);
    else
      ok = session_->setCollator(path);
  } catch (const std::exception& e) {
    why = QString::fromUtf8(e.what());
  }
  disconnect(keep);
  if (!ok && error) *error = why;
  if (ok) showView(QStringLiteral("framework"));
  return ok;
}

bool MainWindow::openPath(const QString& path) {
  // A YAML file is never a dataset: an Axolotl or LLaMA-Factory config (dropped, or on the command line).
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("yml") || suffix == QLatin1String("yaml")) {
    QString error;
    if (openFrameworkConfig(path, &error)) return true;
    showStatus(error, 15000);
    return false;
  }
  const bool ok = session_->openPath(path);
  if (ok && !path.startsWith(QLatin1String("builtin:"))) addRecent(path);
  return ok;
}

void MainWindow::restoreSettings() {
  QSettings s;
  recent_ = s.value(QStringLiteral("recentFiles")).toStringList();
  rebuildRecentMenu();
  if (s.contains(QStringLiteral("geometry"))) restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
  if (s.contains(QStringLiteral("windowState"))) restoreState(s.value(QStringLiteral("windowState")).toByteArray());
  if (s.value(QStringLiteral("darkTheme")).toBool())
    if (auto* a = findChild<QAction*>(QStringLiteral("darkThemeAction"))) a->setChecked(true);
  toolbar_->batchSizeBox()->setValue(s.value(QStringLiteral("batchRows"), session_->batchSize()).toInt());
  const QString collator = s.value(QStringLiteral("collator")).toString();
  if (!collator.isEmpty() && session_->collatorSpec() == QLatin1String("default")) session_->setCollator(collator);
}

void MainWindow::saveSettings() {
  QSettings s;
  s.setValue(QStringLiteral("geometry"), saveGeometry());
  s.setValue(QStringLiteral("windowState"), saveState());
  s.setValue(QStringLiteral("recentFiles"), recent_);
  s.setValue(QStringLiteral("darkTheme"), palette::theme() == palette::Theme::Dark);
  s.setValue(QStringLiteral("batchRows"), session_->batchSize());
  s.setValue(QStringLiteral("collator"), session_->collatorSpec());
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (persistent_) saveSettings();
  model_->runner()->cancel();
  QMainWindow::closeEvent(e);
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (shownOnce_) return;
  shownOnce_ = true;
  // Now the frame is known: the whole window, title bar included, stays on its screen (the app's
  // window, and one at the size the constructor chose; a size a caller set is kept).
  if (fitsScreen_ && (persistent_ || size() == initialSize_)) {
    // A window at the constructor's size (no remembered geometry, no size a caller set) is centred.
    const bool centre = size() == initialSize_ && !(persistent_ && QSettings().contains(QStringLiteral("geometry")));
    QTimer::singleShot(0, this, [this, centre] {
      if (centre) layout_->centreOnScreen();
      fitToScreen(false);
    });
  }
  if (persistent_ && QSettings().contains(QStringLiteral("windowState"))) return;
  // First run: the default dock sizes, once the window has its size (from a queued call).
  QTimer::singleShot(0, this, [this] { layout_->applyDefaultDockSizes(); });
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile()) openPath(u.toLocalFile());
}

bool MainWindow::exportTrainingTemplate(const QString& path, QString* error) {
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  const DatasetPipeline* pipe = session_->pipeline();
  if (!pipe) return fail(tr("no chat template is loaded"));
  const ChatTemplate& tmpl = pipe->chatTemplate();
  if (tmpl.hasGenerationMarkers())
    return fail(tr("the template '%1' has {% generation %} blocks already").arg(QString::fromStdString(tmpl.name())));
  const TrainingTemplateResult r =
      makeTrainingTemplate(tmpl.source(), tmpl.defaultVariables(), pipe->tokenizer().specialTokenStrings());
  if (!r.ok) return fail(QString::fromStdString(r.error));
  return writeTextFile(path, QString::fromStdString(r.source), error);
}

bool MainWindow::exportFindings(const QString& path, QString* error) { return lint_->exportFindings(path, error); }

bool MainWindow::exportView(const QString& view, const QString& path, QString* error) {
  if (view == QLatin1String("report") || path.endsWith(QLatin1String(".html"), Qt::CaseInsensitive)) {
    AttentionGridCanvas* grid = attentionGrid();
    const QImage gridImage = renderToImage([grid](QPainter& p, QRect a) { grid->render(p, a); }, QSize(720, 720));
    const ReportLoss loss{&loss_->breakdown(), loss_->fromModel(), loss_->lossSource()};
    return writeTextFile(path, htmlReport(*session_, &lint_->report(), loss, gridImage), error);
  }
  const ViewSpec* spec = findView(view);
  QWidget* w = this->view(view);
  if (!spec || !w || spec->offscreen == OffscreenRender::Window) return exportWidget(this, path, error);
  if (spec->offscreen == OffscreenRender::Grab) return exportWidget(w, path, error);
  const RenderFunction render = [spec, w](QPainter& p, QRect a) { spec->paint(w, p, a); };
  const QSize size = spec->canvas(w)->size().expandedTo(spec->exportSize);
  if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) return exportSvg(render, size, path, view, error);
  return exportPng(render, size, path, error);
}

} // namespace maskscope
