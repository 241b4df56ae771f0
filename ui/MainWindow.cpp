// Main window layout and wiring between the session and the views. Which views exist, where they
// sit and how they export comes from the view registry (ui/ViewRegistry.cpp).
#include "ui/MainWindow.h"
#include "core/collate/CollatorSpec.h"
#include "core/forward/LayerAttention.h"
#include "core/forward/ModelSpec.h"
#include "core/mask/RowFacts.h"
#include "core/template/ChatTemplate.h"
#include "core/template/TrainingTemplate.h"
#include "ui/AttentionGridView.h"
#include "ui/AttentionPane.h"
#include "ui/ComparePanel.h"
#include "ui/DatasetBrowser.h"
#include "ui/Export.h"
#include "ui/HelpDialog.h"
#include "ui/LayerSpinBox.h"
#include "ui/LintPanel.h"
#include "ui/LossView.h"
#include "ui/ModelRunner.h"
#include "ui/Palette.h"
#include "ui/Session.h"
#include "ui/SoftmaxView.h"
#include "ui/TeachingPanel.h"
#include "ui/TokenStripView.h"
#include "ui/TokenizerPicker.h"
#include "ui/ViewRegistry.h"
#include "ui/WorkerPool.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPromise>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <memory>
#include <utility>

namespace maskscope {

namespace {

constexpr int kMaxRecent = 10;
constexpr double kPresenterScale = 1.6; // presenter mode's type size: text, chips, grid labels

// Gives a docked panel a modest preferred size, so the strip and grid get the room at first start.
class PanelFrame : public QWidget {
public:
  PanelFrame(QWidget* panel, QSize hint) : hint_(hint) {
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(panel);
  }
  QSize sizeHint() const override { return hint_; }
  QSize minimumSizeHint() const override { return {120, shrinkTo_ ? shrinkTo_->minimumSizeHint().height() : 90}; }
  // Presenter mode: the bottom docks share one tab group, whose least height is its tallest
  // least; each may shrink to the folded lint panel's summary line (nullptr: back to 90 px).
  void setShrinkTo(const QWidget* w) {
    shrinkTo_ = w;
    updateGeometry();
  }

private:
  QSize hint_;
  const QWidget* shrinkTo_ = nullptr;
};

} // namespace

MainWindow::MainWindow(Session* session, QWidget* parent, bool persistent)
    : QMainWindow(parent), session_(session), persistent_(persistent) {
  setWindowTitle(tr("maskscope"));
  setObjectName(QStringLiteral("mainWindow"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  // The first window fits the screen it opens on (a 1024 x 768 projector, a laptop at 200 %).
  if (const QScreen* s = QGuiApplication::primaryScreen())
    resize(QSize(1280, 820).boundedTo(s->availableGeometry().size()));
  else
    resize(1280, 820);
  initialSize_ = size();
  baseFontPt_ = QApplication::font().pointSizeF();
  model_ = new ModelRunner(this);

  buildToolbar();
  createViews();
  buildCentre();
  arrangeDocks();
  auto* readOnly = new QLabel(tr("Read-only: maskscope never edits your files"), this);
  readOnly->setObjectName(QStringLiteral("readOnlyNotice"));
  statusBar()->addPermanentWidget(readOnly);
  modelLabel_ = new QLabel(tr("no model"), this);
  statusBar()->addPermanentWidget(modelLabel_);
  runProgress_ = new QProgressBar(this);
  runProgress_->setObjectName(QStringLiteral("forwardProgress"));
  runProgress_->setRange(0, 1000);
  runProgress_->setMaximumWidth(160);
  runProgress_->hide();
  statusBar()->addPermanentWidget(runProgress_);
  cancelRun_ = new QPushButton(tr("Cancel"), this);
  cancelRun_->setObjectName(QStringLiteral("cancelForward"));
  cancelRun_->setToolTip(tr("Stop the forward pass after the current layer"));
  cancelRun_->hide();
  statusBar()->addPermanentWidget(cancelRun_);
  buildMenus();

  connectSession();
  connectDatasetBrowser();
  connectPipelineControls();
  connectModel();
  // Presenter mode sizes the bottom docks by the tab in front (the folded lint panel small, another
  // view at its usual height): a tab brought forward there (it becomes visible) gets its height.
  for (QDockWidget* d : docks_)
    connect(d, &QDockWidget::visibilityChanged, this, [this, d](bool visible) {
      if (visible && presenter_ && dockSizesApplied_ && dockWidgetArea(d) == Qt::BottomDockWidgetArea)
        QTimer::singleShot(0, this, [this, d] { applyDefaultDockSizes(d); });
    });
  fillConversationList();
  syncPipelineControls();
  updateSummary();
  if (persistent_) restoreSettings();
}

MainWindow::~MainWindow() {
  if (lengthsWatcher_) lengthsWatcher_->cancel(); // the worker owns its inputs; this only stops it early
}

// Toolbar: tokenizer, template, collator, batch size.
void MainWindow::buildToolbar() {
  auto* tb = addToolBar(tr("Pipeline"));
  tb->setObjectName(QStringLiteral("pipelineToolbar"));
  tb->addWidget(new QLabel(tr(" Tokenizer "), tb));
  tokenizerBox_ = new TokenizerPicker(session_, persistent_, tb);
  tb->addWidget(tokenizerBox_);
  tb->addWidget(new QLabel(tr("  Template "), tb));
  templateBox_ = new QComboBox(tb);
  templateBox_->addItem(tr("(tokenizer's own)"), QString());
  for (const auto& n : builtinTemplateNames())
    templateBox_->addItem(QString::fromStdString(n), QString::fromStdString(n));
  templateBox_->addItem(tr("From file\u2026"), QStringLiteral("@file"));
  tb->addWidget(templateBox_);
  tb->addWidget(new QLabel(tr("  Collator "), tb));
  collatorBox_ = new QComboBox(tb);
  for (const auto& p : collatorPresets()) {
    collatorBox_->addItem(QString::fromStdString(p.name) + (p.buggy ? tr("  (bug)") : QString()),
                          QString::fromStdString(p.name));
    collatorBox_->setItemData(collatorBox_->count() - 1, QString::fromStdString(p.mirrors), Qt::ToolTipRole);
  }
  collatorBox_->setMinimumContentsLength(18);
  tb->addWidget(collatorBox_);
  tb->addWidget(new QLabel(tr("  Batch rows "), tb));
  batchSize_ = new QSpinBox(tb);
  batchSize_->setRange(1, 64);
  batchSize_->setValue(session_->batchSize());
  tb->addWidget(batchSize_);
}

// Every view of the registry, each in a dock of its area or kept for the centre.
void MainWindow::createViews() {
  const ViewHost host{session_, this};
  for (const ViewSpec& v : viewRegistry()) {
    QWidget* w = v.create(host);
    views_.insert(v.name, w);
    if (v.area == Qt::NoDockWidgetArea) continue;
    auto* dock = new QDockWidget(v.title, this);
    dock->setObjectName(v.dockName);
    const bool side = v.area == Qt::LeftDockWidgetArea || v.area == Qt::RightDockWidgetArea;
    dock->setWidget(new PanelFrame(w, side ? QSize(280, 400) : QSize(800, 190)));
    docks_ << dock;
  }
  // The views the window wires to each other and to the session.
  auto* browser = static_cast<DatasetBrowser*>(view(QStringLiteral("dataset")));
  list_ = browser->list();
  filter_ = browser->searchBox();
  minMessages_ = browser->minMessagesBox();
  minTokens_ = browser->minTokensBox();
  findingFilter_ = browser->findingFilterBox();
  attentionPane_ = static_cast<AttentionPane*>(view(QStringLiteral("attention")));
  grid_ = attentionPane_->grid();
  strip_ = static_cast<TokenStripView*>(view(QStringLiteral("tokens")));
  softmax_ = static_cast<SoftmaxView*>(view(QStringLiteral("softmax")));
  loss_ = static_cast<LossView*>(view(QStringLiteral("loss")));
  lint_ = static_cast<LintPanel*>(view(QStringLiteral("lint")));
  compare_ = static_cast<ComparePanel*>(view(QStringLiteral("compare")));
  teaching_ = static_cast<TeachingPanel*>(view(QStringLiteral("teaching")));
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
  centreError_->setStyleSheet(
      QStringLiteral("QLabel{border:2px solid %1;padding:8px;font-size:14px;}").arg(palette::warningText().name()));
  centreError_->hide();
  cl->addWidget(centreError_);
  auto* split = new QSplitter(Qt::Vertical, centre);
  for (const ViewSpec& v : viewRegistry())
    if (v.area == Qt::NoDockWidgetArea) {
      split->addWidget(view(v.name));
      split->setStretchFactor(split->count() - 1, 1);
    }
  cl->addWidget(split, 1);
  setCentralWidget(centre);
}

QWidget* MainWindow::view(const QString& name) const { return views_.value(name); }

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

QString MainWindow::modelTokenizerProblem(const QString& modelSpec) const {
  // builtin:tiny's embeddings are indexed by the demo tokenizer's ids: any other tokenizer's ids
  // would be read as other tokens (or fall outside its vocabulary).
  if (modelSpec != QLatin1String("builtin:tiny") || session_->tokenizerSpec() == QLatin1String("builtin:demo"))
    return {};
  return tr("builtin:tiny needs the builtin:demo tokenizer (it was trained on its ids), not %1: choose builtin:demo "
            "in the Tokenizer box, then load the model again.")
      .arg(tokenizerDisplayName(session_->tokenizerSpec()));
}

QString MainWindow::centreErrorText() const { return !centreError_->isHidden() ? centreError_->text() : QString(); }

QDockWidget* MainWindow::dock(const QString& name) const {
  const ViewSpec* spec = findView(name);
  if (!spec || spec->dockName.isEmpty()) return nullptr;
  for (QDockWidget* d : docks_)
    if (d->objectName() == spec->dockName) return d;
  return nullptr;
}

// The default arrangement: each dock docked in its area, shown, the docks of one area tabbed in
// table order with the first raised. The constructor and View > Reset layout both use it.
void MainWindow::arrangeDocks() {
  QHash<int, QDockWidget*> last; // per area, the dock the next one tabs onto
  QList<QDockWidget*> first;
  for (const ViewSpec& v : viewRegistry()) {
    QDockWidget* d = dock(v.name);
    if (!d) continue;
    d->setFloating(false);                   // back in the layout first: a removed dock cannot be docked by setFloating
    if (docksArranged_) removeDockWidget(d); // a dock added twice would be laid out twice
    addDockWidget(v.area, d);
    d->show();
    if (QDockWidget* previous = last.value(int(v.area)))
      tabifyDockWidget(previous, d);
    else
      first << d;
    last.insert(int(v.area), d);
  }
  for (QDockWidget* d : first) d->raise();
  docksArranged_ = true;
}

// First-show sizes: the strip and grid get most of the height, the bottom panels a strip, the
// dataset browser a column.
void MainWindow::applyDefaultDockSizes(QDockWidget* front) {
  QDockWidget* bottom = front; // the tab in front of the bottom area, when known
  QDockWidget* side = nullptr;
  for (QDockWidget* d : docks_) {
    const Qt::DockWidgetArea a = dockWidgetArea(d);
    if (!bottom && a == Qt::BottomDockWidgetArea && d->isVisible()) bottom = d;
    if (!side && (a == Qt::LeftDockWidgetArea || a == Qt::RightDockWidgetArea) && d->isVisible()) side = d;
  }
  // The side first: its width decides the centre's, which the bottom's height is measured against.
  if (side) resizeDocks({side}, {280}, Qt::Horizontal);
  if (bottom) {
    // About 28 % of the window, but never taking the centre below its least height: the layout
    // would then cut the grid's bottom off under the docks (a 1024 x 768 window, presenter mode).
    if (layout()) layout()->activate();
    const int shared = centralWidget()->height() + bottom->height();
    const int room = shared - centralWidget()->minimumSizeHint().height();
    const int least = bottom->minimumSizeHint().height();
    // Presenter mode with the lint panel in front: it is folded to its summary line, and the room
    // goes to the grid (a 1024 x 768 projector leaves little height).
    const bool folded = presenter_ && bottom == dock(QStringLiteral("lint"));
    const int wanted = folded ? least : std::max(180, height() * 28 / 100);
    const int target = std::clamp(wanted, least, std::max(least, room));
    resizeDocks({bottom}, {target}, Qt::Vertical);
    // The size given covers the area's tab bar when the docks are tabbed already (after a reset),
    // not on the first run: correct by what the dock actually got, so both end at the same height.
    if (layout()) layout()->activate();
    if (const int error = target - bottom->height(); error != 0) resizeDocks({bottom}, {target + error}, Qt::Vertical);
  }
  dockSizesApplied_ = true;
}

void MainWindow::resetLayout() {
  dockSizesApplied_ = false;
  arrangeDocks();
  QTimer::singleShot(0, this, [this] { applyDefaultDockSizes(); });
}

void MainWindow::connectSession() {
  connect(session_, &Session::datasetChanged, this, [this] {
    statusBar()->clearMessage(); // a message about the previous file is stale now
    cancelTokenLengths();
    tokenLengths_.clear();
    fillConversationList();
  });
  connect(session_, &Session::pipelineChanged, this, [this] {
    // Lengths depend on the tokenizer and template, not on the collator.
    if (lengthsKey_ != session_->tokenizerSpec() + QLatin1Char('\n') + session_->templateSpec()) {
      cancelTokenLengths();
      tokenLengths_.clear();
      if (minTokens_->value() > 0) applyFilter();
    }
  });
  connect(session_, &Session::batchChanged, this, &MainWindow::updateSummary);
  connect(session_, &Session::batchChanged, this, [this] {
    if (!model_->hasModel() || !session_->hasBatch()) return;
    if (const QString problem = modelTokenizerProblem(model_->spec()); !problem.isEmpty()) {
      statusBar()->showMessage(problem, 30000); // the tokenizer changed under a loaded builtin:tiny
      return;
    }
    model_->run(session_->batch(), attentionPane_->layerBox()->value(), attentionPane_->headBox()->value(),
                session_->batchRow());
  });
  connect(session_, &Session::pipelineChanged, this, &MainWindow::syncPipelineControls);
  connect(session_, &Session::errorOccurred, this, [this](const QString& m) {
    statusBar()->showMessage(m, 15000);
    pendingError_ = m; // a batch that failed to build reports here just before batchChanged
  });
  connect(session_, &Session::batchChanged, this, &MainWindow::updateCentreError);
  updateCentreError();
  connect(session_, &Session::modelChanged, this, [this](const QString& spec) {
    if (spec.isEmpty()) return;
    if (const QString problem = modelTokenizerProblem(spec); !problem.isEmpty()) {
      statusBar()->showMessage(problem, 30000);
      if (!model_->hasModel()) showNoModel();
      session_->setModelSpec(QString()); // refused: choosing the model again retries
      return;
    }
    model_->load(spec);
  });
  connect(session_, &Session::batchChanged, this, [this] {
    // Keep the list's selection on the session's row (lint jumps, teaching steps).
    for (int i = 0; i < list_->count(); ++i)
      if (list_->item(i)->data(Qt::UserRole).toInt() == session_->selectedRow() && list_->currentRow() != i) {
        QSignalBlocker block(list_);
        list_->setCurrentRow(i);
        break;
      }
  });
}

void MainWindow::connectDatasetBrowser() {
  connect(list_, &QListWidget::currentRowChanged, this, [this](int item) {
    if (item < 0) return;
    session_->selectRow(list_->item(item)->data(Qt::UserRole).toInt());
  });
  connect(filter_, &QLineEdit::textChanged, this, &MainWindow::applyFilter);
  connect(minMessages_, &QSpinBox::valueChanged, this, &MainWindow::applyFilter);
  connect(minTokens_, &QSpinBox::valueChanged, this, &MainWindow::applyFilter);
  connect(findingFilter_, &QComboBox::currentIndexChanged, this, &MainWindow::applyFilter);
  connect(lint_, &LintPanel::reportChanged, this, [this] {
    if (findingFilter_->currentIndex() > 0) applyFilter();
  });
}

void MainWindow::connectPipelineControls() {
  connect(collatorBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) session_->setCollator(collatorBox_->itemData(i).toString());
  });
  connect(templateBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
    QString spec = templateBox_->itemData(i).toString();
    if (spec == QLatin1String("@file")) {
      spec = QFileDialog::getOpenFileName(this, tr("Chat template"), {},
                                          tr("Templates (*.jinja tokenizer_config.json *.json)"));
      if (spec.isEmpty()) return syncPipelineControls();
    }
    session_->setTemplate(spec);
  });
  connect(batchSize_, &QSpinBox::valueChanged, session_, &Session::setBatchSize);
}

// The model: the attention pane's layer/head/mode controls, loading and the forward passes.
void MainWindow::connectModel() {
  QSpinBox* layerBox = attentionPane_->layerBox();
  QSpinBox* headBox = attentionPane_->headBox();
  QComboBox* probsMode = attentionPane_->modeBox();
  connect(probsMode, &QComboBox::currentIndexChanged, this, [this, layerBox, headBox](int i) {
    if (i == 1 && !model_->hasModel()) {
      statusBar()->showMessage(tr("Load a model (Model menu) to see real attention probabilities."), 8000);
      grid_->setProbabilities({}, {});
    } else if (i == 1) {
      model_->run(session_->batch(), layerBox->value(), headBox->value());
    } else {
      grid_->setProbabilities({}, {});
    }
  });
  auto rerun = [this, probsMode, layerBox, headBox] {
    if (model_->hasModel() && probsMode->currentIndex() == 1)
      model_->run(session_->batch(), layerBox->value(), headBox->value());
  };
  // The layer, its layout or the window box: what the grid and softmax view draw.
  connect(attentionPane_, &AttentionPane::layerAttentionChanged, this, &MainWindow::applyLayerAttention);
  connect(layerBox, &QSpinBox::valueChanged, this, [this, layerBox, headBox] {
    // The softmax view's scores belong to the layer they were captured from: rerun for the new one.
    if (!model_->hasModel() || !session_->hasBatch()) return;
    softmax_->setModelScores({}, {});
    model_->run(session_->batch(), layerBox->value(), headBox->value());
  });
  connect(headBox, &QSpinBox::valueChanged, this, rerun);
  connect(model_, &ModelRunner::modelLoaded, this, [this, layerBox, headBox](const QString& d) {
    modelLabel_->setText(d);
    layoutConfig_.clear(); // the model's own layers from now on
    compare_->setModel(model_->model(), model_->modelLock(), d);
    attentionPane_->layerPicker()->setModel(*model_->info());
    headBox->setRange(0, std::max(0, model_->heads() - 1));
    if (attentionPane_->userWindow() > 0) // the window box's setting is set aside, not lost
      statusBar()->showMessage(tr("The model's layers set the window now; your window of %1 keys applies again "
                                  "without a model.")
                                   .arg(attentionPane_->userWindow()),
                               15000);
    if (session_->hasBatch()) model_->run(session_->batch(), layerBox->value(), headBox->value(), session_->batchRow());
  });
  connect(model_, &ModelRunner::failed, this, [this](const QString& m) {
    if (!model_->hasModel()) {
      showNoModel();
      compare_->setModel(nullptr, nullptr, {});
      if (layoutConfig_.isEmpty()) attentionPane_->layerPicker()->setModel(ModelInfo{}); // a config's stays
    }
    statusBar()->showMessage(m == QLatin1String("cancelled") ? tr("forward pass cancelled") : m, 20000);
  });
  connect(model_, &ModelRunner::finished, this, &MainWindow::onModelRun);
  connectRunProgress();
}

// Loading reports in the status line; a forward pass also fills the progress bar, layer by layer,
// with a Cancel that stops it between layers.
void MainWindow::connectRunProgress() {
  connect(model_, &ModelRunner::runStarted, this, [this] {
    runProgress_->setValue(0);
    runProgress_->show();
    cancelRun_->setEnabled(true);
    cancelRun_->show();
  });
  connect(model_, &ModelRunner::progress, this, [this](double f, const QString& t) {
    statusBar()->showMessage(t);
    if (!runProgress_->isHidden()) runProgress_->setValue(int(std::clamp(f, 0.0, 1.0) * 1000));
  });
  auto done = [this] {
    runProgress_->hide();
    cancelRun_->hide();
  };
  connect(model_, &ModelRunner::finished, this, done);
  connect(model_, &ModelRunner::failed, this, done);
  connect(cancelRun_, &QPushButton::clicked, this, [this] {
    cancelRun_->setEnabled(false);
    model_->cancel();
    statusBar()->showMessage(tr("cancelling after the current layer..."));
  });
}

bool MainWindow::loadLayerLayout(const QString& path, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why.contains(path) ? why : tr("%1: %2").arg(path, why); // the file named once
    return false;
  };
  if (model_->hasModel())
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
  attentionPane_->layerPicker()->setModel(info); // draws the picked layer's band (layerAttentionChanged)
  statusBar()->showMessage(tr("Layer layout of %1: %2. No weights: the mask only.")
                               .arg(path, QString::fromStdString(layerAttentionSummary(info))),
                           20000);
  return true;
}

void MainWindow::openLayerLayout(const QString& path) {
  QString error;
  if (loadLayerLayout(path, &error)) return;
  QMessageBox box(QMessageBox::Warning, tr("Layer layout"), tr("Could not show a layer layout.\n\n%1").arg(error),
                  QMessageBox::Ok, this);
  box.setObjectName(QStringLiteral("layerLayoutError"));
  box.exec();
}

void MainWindow::showNoModel() {
  modelLabel_->setText(layoutConfig_.isEmpty()
                           ? tr("no model")
                           : tr("no model (layers of %1)").arg(QFileInfo(layoutConfig_).fileName()));
}

void MainWindow::applyLayerAttention() {
  const ShownLayer shown = attentionPane_->shownLayer();
  const QString text = QString::fromStdString(shown.text);
  grid_->setLayerAttention(shown.window, text);
  softmax_->setLayerAttention(shown.window, shown.softcap, text);
}

void MainWindow::buildMenus() {
  buildFileMenu();
  QMenu* nav = menuBar()->addMenu(tr("&Navigate"));
  auto step = [this](int d) {
    int i = list_->currentRow();
    for (int j = i + d; j >= 0 && j < list_->count(); j += d)
      if (!list_->item(j)->isHidden()) {
        list_->setCurrentRow(j);
        break;
      }
  };
  nav->addAction(tr("Next row"), QKeySequence(Qt::ALT | Qt::Key_Down), this, [step] { step(1); });
  nav->addAction(tr("Previous row"), QKeySequence(Qt::ALT | Qt::Key_Up), this, [step] { step(-1); });
  nav->addAction(tr("Next position"), QKeySequence(Qt::ALT | Qt::Key_Right), this,
                 [this] { session_->selectPosition(session_->selectedPosition() + 1); });
  nav->addAction(tr("Previous position"), QKeySequence(Qt::ALT | Qt::Key_Left), this,
                 [this] { session_->selectPosition(std::max(0, session_->selectedPosition() - 1)); });
  nav->addAction(tr("Search rows"), QKeySequence::Find, this, [this] { filter_->setFocus(); });
  buildViewMenu();

  QMenu* model = menuBar()->addMenu(tr("&Model"));
  model->addAction(tr("Load model folder\u2026"), this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Model folder"));
    if (!d.isEmpty()) session_->setModelSpec(d);
  });
  model->addAction(tr("Load the built-in tiny model"), this,
                   [this] { session_->setModelSpec(QStringLiteral("builtin:tiny")); });
  model->addAction(tr("Layer layout from config.json\u2026"), this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("A model's config.json"), {},
                                                   tr("Model configs (*.json);;All files (*)"));
    if (!f.isEmpty()) openLayerLayout(f);
  });
  model->addAction(tr("Cancel the running pass"), this, [this] { model_->cancel(); });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Legend and shortcuts\u2026"), QKeySequence(Qt::Key_F1), this, [this] {
    HelpDialog dialog(this, this);
    dialog.exec();
  });
  auto openTeaching = [this] {
    showView(QStringLiteral("teaching"));
    if (teaching_->stepIndex() < 0) teaching_->goToStep(0);
  };
  help->addAction(tr("&Teaching mode"), this, openTeaching);
  if (persistent_) showFirstStartHint(this, openTeaching); // the app only: not snapshots or tests
  help->addAction(tr("About maskscope"), this, [this] {
    QMessageBox::about(
        this, tr("maskscope"),
        tr("maskscope %1 shows and debugs the masks of LLM fine-tuning.\n\nIt only reads datasets, batch dumps, "
           "tokenizers, templates and models; it never edits them. Exports are written only where you choose.")
            .arg(QApplication::applicationVersion()));
  });
  rebuildRecentMenu();
}

void MainWindow::buildFileMenu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open dataset or batch dump\u2026"), this, [this] {
    const QString f = QFileDialog::getOpenFileName(
        this, tr("Open"), {}, tr("Datasets and batch dumps (*.jsonl *.json *.safetensors *.pt);;All files (*)"));
    if (!f.isEmpty()) openPath(f);
  });
  open->setShortcut(QKeySequence::Open);
  file->addAction(tr("Open &model folder\u2026"), this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Model folder"));
    if (!d.isEmpty()) openPath(d);
  });
  file->addAction(tr("Open the built-in &demo"), this,
                  [this] { session_->openDataset(QStringLiteral("builtin:demo")); });
  recentMenu_ = file->addMenu(tr("Open &recent"));
  file->addSeparator();
  auto exportAs = [this](const QString& view) {
    const QString f = QFileDialog::getSaveFileName(this, tr("Export %1").arg(view), view + QStringLiteral(".png"),
                                                   tr("PNG image (*.png);;SVG drawing (*.svg)"));
    QString err;
    if (!f.isEmpty() && !exportView(view, f, &err)) QMessageBox::warning(this, tr("Export"), err);
  };
  QMenu* exp = file->addMenu(tr("&Export view"));
  for (const QString& v : viewNames()) {
    const ViewSpec* spec = findView(v);
    if (spec && spec->offscreen == OffscreenRender::Window) continue; // exports as the whole window
    exp->addAction(spec ? spec->title : tr("Whole window"), this, [exportAs, v] { exportAs(v); });
  }
  file->addAction(tr("Export &HTML report\u2026"), this, [this] {
    const QString f = QFileDialog::getSaveFileName(this, tr("HTML report"), QStringLiteral("maskscope-report.html"),
                                                   tr("HTML (*.html)"));
    QString err;
    if (!f.isEmpty() && !exportView(QStringLiteral("report"), f, &err)) QMessageBox::warning(this, tr("Export"), err);
  });
  file->addAction(tr("Export &training template\u2026"), this, [this] {
    const QString f = QFileDialog::getSaveFileName(this, tr("Training template"), QStringLiteral("training.jinja"),
                                                   tr("Jinja template (*.jinja)"));
    QString err;
    if (!f.isEmpty() && !exportTrainingTemplate(f, &err)) QMessageBox::warning(this, tr("Export"), err);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::buildViewMenu() {
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : docks_) view->addAction(d->toggleViewAction());
  QAction* reset = view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);
  reset->setObjectName(QStringLiteral("resetLayoutAction"));
  reset->setToolTip(tr("Dock every panel where it starts: dataset left, the others tabbed at the bottom"));
  view->addSeparator();
  QAction* dark = view->addAction(tr("&Dark theme"));
  dark->setCheckable(true);
  dark->setObjectName(QStringLiteral("darkThemeAction"));
  connect(dark, &QAction::toggled, this, &MainWindow::setDarkTheme);
  QAction* presenter = view->addAction(tr("&Presenter mode (large type)"));
  presenter->setObjectName(QStringLiteral("presenterAction"));
  presenter->setCheckable(true);
  presenter->setShortcut(QKeySequence(Qt::Key_F11));
  connect(presenter, &QAction::toggled, this, &MainWindow::setPresenterMode);
  connect(teaching_, &TeachingPanel::presenterToggled, this, &MainWindow::setPresenterMode);
  view->addAction(tr("Teaching mode"), this, [this] {
    showView(QStringLiteral("teaching"));
    if (teaching_->stepIndex() < 0) teaching_->goToStep(0);
  });
}

bool MainWindow::openPath(const QString& path) {
  const bool ok = session_->openPath(path);
  if (ok && !path.startsWith(QLatin1String("builtin:"))) addRecent(path);
  return ok;
}

void MainWindow::addRecent(const QString& path) {
  const QString abs = QFileInfo(path).absoluteFilePath();
  recent_.removeAll(abs);
  recent_.prepend(abs);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  rebuildRecentMenu();
  if (persistent_) QSettings().setValue(QStringLiteral("recentFiles"), recent_);
}

void MainWindow::rebuildRecentMenu() {
  if (!recentMenu_) return;
  recentMenu_->clear();
  for (const QString& f : recent_) recentMenu_->addAction(f, this, [this, f] { openPath(f); });
  recentMenu_->setEnabled(!recent_.isEmpty());
}

void MainWindow::restoreSettings() {
  QSettings s;
  recent_ = s.value(QStringLiteral("recentFiles")).toStringList();
  rebuildRecentMenu();
  if (s.contains(QStringLiteral("geometry"))) restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
  if (s.contains(QStringLiteral("windowState"))) restoreState(s.value(QStringLiteral("windowState")).toByteArray());
  if (s.value(QStringLiteral("darkTheme")).toBool())
    if (auto* a = findChild<QAction*>(QStringLiteral("darkThemeAction"))) a->setChecked(true);
  batchSize_->setValue(s.value(QStringLiteral("batchRows"), session_->batchSize()).toInt());
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
  model_->cancel();
  QMainWindow::closeEvent(e);
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (shownOnce_) return;
  shownOnce_ = true;
  // Now the frame is known: the whole window, title bar included, stays on its screen (the app's
  // window, and one at the size the constructor chose; a size a caller set is kept).
  if (fitsScreen_ && (persistent_ || size() == initialSize_))
    QTimer::singleShot(0, this, [this] { fitToScreen(false); });
  if (persistent_ && QSettings().contains(QStringLiteral("windowState"))) return;
  // First run: the default dock sizes, once the window has its size (from a queued call).
  QTimer::singleShot(0, this, [this] { applyDefaultDockSizes(); });
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile()) openPath(u.toLocalFile());
}

void MainWindow::syncPipelineControls() {
  // The combos follow the session (a --collator on the command line, a teaching step, a lint jump).
  QSignalBlocker a(collatorBox_), b(templateBox_);
  const QString spec = session_->collatorSpec();
  int i = collatorBox_->findData(spec);
  if (i < 0) {
    collatorBox_->addItem(tr("custom: %1").arg(spec), spec);
    i = collatorBox_->count() - 1;
  }
  collatorBox_->setCurrentIndex(i);
  collatorBox_->setEnabled(!session_->isBatchDump());
  int t = templateBox_->findData(session_->templateSpec());
  if (t < 0) {
    templateBox_->insertItem(templateBox_->count() - 1, QFileInfo(session_->templateSpec()).fileName(),
                             session_->templateSpec());
    t = templateBox_->count() - 2;
  }
  templateBox_->setCurrentIndex(t);
}

void MainWindow::fillConversationList() {
  QSignalBlocker block(list_);
  list_->clear();
  for (int r = 0; r < session_->rowCount(); ++r) {
    auto* item = new QListWidgetItem(session_->rowTitle(r), list_);
    item->setData(Qt::UserRole, r);
  }
  if (session_->selectedRow() >= 0) list_->setCurrentRow(session_->selectedRow());
  minMessages_->setEnabled(session_->hasConversations());
  minTokens_->setEnabled(session_->hasConversations());
  if (!session_->rowErrors().isEmpty())
    statusBar()->showMessage(
        tr("%1 rows skipped: %2").arg(session_->rowErrors().size()).arg(session_->rowErrors().first()));
  setWindowTitle(tr("maskscope \u2014 %1").arg(session_->datasetSpec()));
  syncPipelineControls();
  applyFilter();
}

void MainWindow::applyFilter() {
  const QString text = filter_->text();
  const int minMsgs = minMessages_->value();
  const int minTok = minTokens_->value();
  // Token lengths come from a worker; until they arrive the length criterion is not applied.
  if (minTok > 0 && session_->hasConversations() && int(tokenLengths_.size()) != session_->rowCount() &&
      !lengthsPending_)
    startTokenLengths();
  QList<int> findingRows;
  const bool byFinding = findingFilter_->currentIndex() > 0;
  if (byFinding) findingRows = lint_->rowsWithFindings();
  for (int i = 0; i < list_->count(); ++i) {
    QListWidgetItem* item = list_->item(i);
    const int r = item->data(Qt::UserRole).toInt();
    bool match = true;
    if (session_->hasConversations()) {
      const Conversation& c = session_->conversation(r);
      bool textMatch = text.isEmpty();
      for (const auto& m : c.messages)
        textMatch = textMatch || QString::fromStdString(m.content).contains(text, Qt::CaseInsensitive);
      textMatch =
          textMatch || (c.plainText && (QString::fromStdString(c.plainPrompt).contains(text, Qt::CaseInsensitive) ||
                                        QString::fromStdString(c.plainCompletion).contains(text, Qt::CaseInsensitive)));
      match = textMatch && int(c.messages.size()) >= minMsgs;
      if (minTok > 0 && size_t(r) < tokenLengths_.size()) match = match && tokenLengths_[size_t(r)] >= minTok;
    } else {
      match = text.isEmpty() || item->text().contains(text, Qt::CaseInsensitive);
    }
    if (byFinding) match = match && findingRows.contains(r);
    item->setHidden(!match);
  }
}

void MainWindow::startTokenLengths() {
  if (!session_->pipeline()) return;
  cancelTokenLengths();
  const quint64 gen = ++lengthsGeneration_;
  lengthsKey_ = session_->tokenizerSpec() + QLatin1Char('\n') + session_->templateSpec();
  lengthsPending_ = true;
  // The worker owns copies: a pipeline sharing the session's tokenizer and template (both const)
  // and the conversations, so the session may change or go away meanwhile.
  auto pipeline =
      std::make_shared<const DatasetPipeline>(*session_->pipeline(), session_->pipeline()->collator().spec());
  auto rows = std::make_shared<std::vector<Conversation>>();
  rows->reserve(size_t(session_->rowCount()));
  for (int r = 0; r < session_->rowCount(); ++r) rows->push_back(session_->conversation(r));
  if (!lengthsWatcher_) {
    lengthsWatcher_ = new QFutureWatcher<std::vector<int>>(this);
    connect(lengthsWatcher_, &QFutureWatcherBase::progressValueChanged, this, [this](int done) {
      if (lengthsPending_)
        statusBar()->showMessage(
            tr("Measuring token lengths: %1 / %2 rows").arg(done).arg(lengthsWatcher_->progressMaximum()));
    });
  }
  // Each run connects its own finished handler; the generation check drops a cancelled run's.
  auto* watcher = lengthsWatcher_;
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen] {
    if (gen != lengthsGeneration_ || watcher->isCanceled() || watcher->future().resultCount() == 0) return;
    disconnect(watcher, &QFutureWatcherBase::finished, this, nullptr);
    lengthsPending_ = false;
    tokenLengths_ = watcher->future().result();
    statusBar()->showMessage(tr("Token lengths measured for %1 rows").arg(tokenLengths_.size()), 4000);
    applyFilter();
  });
  statusBar()->showMessage(tr("Measuring token lengths: 0 / %1 rows").arg(rows->size()));
  watcher->setFuture(QtConcurrent::run(workerPool(), [pipeline, rows](QPromise<std::vector<int>>& promise) {
    const int n = int(rows->size());
    promise.setProgressRange(0, n);
    std::vector<int> lengths(size_t(n), 0);
    for (int r = 0; r < n; ++r) {
      if (promise.isCanceled()) return;
      try {
        lengths[size_t(r)] = int(pipeline->encode((*rows)[size_t(r)]).tokens.size());
      } catch (const std::exception&) {
        // an unrenderable row counts as length 0 (the dataset view shows its error)
      }
      if ((r & 31) == 31) promise.setProgressValue(r + 1);
    }
    promise.setProgressValue(n);
    promise.addResult(std::move(lengths));
  }));
}

void MainWindow::cancelTokenLengths() {
  ++lengthsGeneration_;
  if (lengthsWatcher_) {
    disconnect(lengthsWatcher_, &QFutureWatcherBase::finished, this, nullptr);
    lengthsWatcher_->cancel();
  }
  if (lengthsPending_) statusBar()->clearMessage();
  lengthsPending_ = false;
}

int MainWindow::visibleRowCount() const {
  int n = 0;
  for (int i = 0; i < list_->count(); ++i) n += !list_->item(i)->isHidden();
  return n;
}

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
  const QString what = session_->isBatchDump()
                           ? tr("batch dump %1").arg(QFileInfo(session_->datasetSpec()).fileName())
                           : QString::fromStdString(session_->pipeline()->collator().spec().describe());
  QString text = tr("<b>Row %1</b> of a %2 x %3 batch (%4) &mdash; %5 tokens, %6 padding, <b>%7 graded</b>")
                     .arg(session_->selectedRow())
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
  summary_->setText(text);
}

void MainWindow::onModelRun(const ModelRun& run) {
  const QString label = tr("layer %1 head %2").arg(run.layer).arg(run.head);
  loss_->setModelNll(run.output.perTokenNll, modelLabel_->text());
  const int r = session_->batchRow();
  if (run.reportRow == r) loss_->setRowReport(run.rowReport, run.reportError);
  std::vector<float> probs = rowAttention(run, r, session_->batch().length());
  if (!probs.empty()) {
    softmax_->setModelScores(scoresFromProbabilities(probs),
                             tr("log attention probabilities, %1 (scores up to a per-row constant)").arg(label));
    if (auto* mode = findChild<QComboBox*>(QStringLiteral("gridMode")); mode && mode->currentIndex() == 1)
      grid_->setProbabilities(std::move(probs), label);
  }
  statusBar()->showMessage(tr("forward pass done (%1, loss %2)")
                               .arg(QString::fromStdString(run.output.device))
                               .arg(run.output.loss, 0, 'f', 4),
                           8000);
}

void MainWindow::showView(const QString& name) {
  if (QDockWidget* d = dock(name)) {
    d->show();
    d->raise();
  } else if (QWidget* w = view(name)) {
    w->setFocus();
  }
}

void MainWindow::setPresenterMode(bool on) {
  if (on == presenter_) return;
  presenter_ = on;
  QFont f = QApplication::font();
  f.setPointSizeF(on ? baseFontPt_ * kPresenterScale : baseFontPt_);
  QApplication::setFont(f);
  for (AttentionGridView* g : {grid_, compare_->gridA(), compare_->gridB()})
    g->setLabelScale(on ? kPresenterScale : 1.0);
  if (QDockWidget* d = dock(QStringLiteral("dataset"))) d->setVisible(!on);
  foldBottomDocks(on);
  if (auto* a = findChild<QAction*>(QStringLiteral("presenterAction"))) {
    QSignalBlocker block(a);
    a->setChecked(on);
  }
  teaching_->setPresenterChecked(on);
  // A projector shows the whole screen: presenter mode fills it; leaving it restores the window.
  if (!fitsScreen_) return;
  if (on) {
    normalGeometry_ = geometry();
    fitToScreen(true);
  }
  // Once the layouts have the new type's least sizes (queued after their requests): the window's
  // own geometry back when leaving, then the height shared between the centre and the docks.
  QTimer::singleShot(0, this, [this, on] {
    if (layout()) layout()->activate(); // the least sizes of the new type, before sizing to them
    if (!on && normalGeometry_.isValid()) {
      setGeometry(normalGeometry_);
      fitToScreen(false);
    }
    applyDefaultDockSizes();
  });
}

// Presenter mode: the lint panel shows its summary line only, the bottom docks may shrink to it and
// their title bars fold away (the tabs name them): the height goes to the grid. Undone on leaving.
void MainWindow::foldBottomDocks(bool on) {
  lint_->setCompact(on);
  for (QDockWidget* d : docks_) {
    if (dockWidgetArea(d) != Qt::BottomDockWidgetArea) continue;
    if (auto* frame = dynamic_cast<PanelFrame*>(d->widget())) frame->setShrinkTo(on ? lint_ : nullptr);
    if (on && !d->titleBarWidget()) {
      d->setTitleBarWidget(new QWidget(d));
    } else if (!on && d->titleBarWidget()) {
      QWidget* empty = d->titleBarWidget();
      d->setTitleBarWidget(nullptr); // the default title bar again
      delete empty;
    }
  }
}

QRect MainWindow::screenRoom() const {
  const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
  if (!s) return {};
  // The frame (title bar, borders) is outside geometry(); it must fit on the screen too.
  const QRect frame = frameGeometry(), inner = geometry();
  const QMargins margins(inner.left() - frame.left(), inner.top() - frame.top(), frame.right() - inner.right(),
                         frame.bottom() - inner.bottom());
  return s->availableGeometry().marginsRemoved(margins);
}

void MainWindow::fitToScreen(bool fill) {
  const QRect room = screenRoom();
  if (room.isEmpty()) return;
  if (fill) {
    setGeometry(room);
    return;
  }
  QRect g(pos(), size().boundedTo(room.size()));
  g.moveLeft(std::clamp(g.left(), room.left(), room.right() - g.width() + 1));
  g.moveTop(std::clamp(g.top(), room.top(), room.bottom() - g.height() + 1));
  setGeometry(g);
}

void MainWindow::setDarkTheme(bool dark) {
  palette::setTheme(dark ? palette::Theme::Dark : palette::Theme::Light);
  setPalette(palette::qtPalette(palette::theme()));
  update();
  for (QWidget* w : findChildren<QWidget*>()) w->update();
  updateSummary();
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

bool MainWindow::exportView(const QString& view, const QString& path, QString* error) {
  if (view == QLatin1String("report") || path.endsWith(QLatin1String(".html"), Qt::CaseInsensitive)) {
    const QImage gridImage = renderToImage([this](QPainter& p, QRect a) { grid_->render(p, a); }, QSize(720, 720));
    return writeTextFile(path, htmlReport(*session_, &lint_->report(), &loss_->breakdown(), gridImage), error);
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
