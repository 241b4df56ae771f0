// The main window's menus: File (open, recent, exports), Navigate (rows and positions), View (docks,
// reset, theme, presenter and teaching mode), Model (load, layer layout, cancel) and Help.
#include "ui/dataset/DatasetController.h"
#include "ui/model/ModelController.h"
#include "ui/model/ModelRunner.h"
#include "ui/shell/AuditReportRunner.h"
#include "ui/shell/HelpDialog.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/shell/WindowLayout.h"
#include "ui/teaching/TeachingView.h"

#include <QActionGroup>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>

namespace maskscope {

namespace {
constexpr int kMaxRecent = 10;
}

void MainWindow::buildMenus() {
  buildFileMenu();
  buildNavigateMenu();
  buildViewMenu();
  buildModelMenu();
  buildHelpMenu();
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
  file->addAction(tr("Open &framework config\u2026"), this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Framework config"), {},
                                                   tr("Framework configs (*.yml *.yaml *.json);;All files (*)"));
    QString err;
    if (!f.isEmpty() && !openFrameworkConfig(f, &err)) QMessageBox::warning(this, tr("Framework config"), err);
  });
  file->addAction(tr("Open the built-in &demo"), this,
                  [this] { session_->openDataset(QStringLiteral("builtin:demo")); });
  recentMenu_ = file->addMenu(tr("Open &recent"));
  // Enabled for as long as a dump is open: a tokenizer chosen (even a wrong one) can be changed again.
  QAction* dumpTokenizer =
      file->addAction(tr("Which &tokenizer made this batch dump?…"), this, [this] { askForDumpTokenizer(); });
  dumpTokenizer->setObjectName(QStringLiteral("dumpTokenizerAction"));
  auto syncDumpTokenizer = [this, dumpTokenizer] { dumpTokenizer->setEnabled(session_->isBatchDump()); };
  connect(session_, &Session::datasetChanged, dumpTokenizer, syncDumpTokenizer);
  connect(session_, &Session::pipelineChanged, dumpTokenizer, syncDumpTokenizer);
  syncDumpTokenizer();
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
  file->addAction(tr("Export lint &findings\u2026"), this, [this] {
    const QString f = QFileDialog::getSaveFileName(this, tr("Lint findings"), QStringLiteral("findings.tsv"),
                                                   tr("Tab-separated (*.tsv);;CSV (*.csv);;JSON Lines (*.jsonl)"));
    QString err;
    if (!f.isEmpty() && !exportFindings(f, &err)) QMessageBox::warning(this, tr("Export"), err);
  });
  QAction* audit = file->addAction(tr("Export &audit report\u2026"), this, [this] {
    const QString f =
        QFileDialog::getSaveFileName(this, tr("Audit report"), QStringLiteral("audit.html"), tr("HTML (*.html)"));
    QString err;
    if (!f.isEmpty() && !exportAuditReport(f, &err)) QMessageBox::warning(this, tr("Export"), err);
  });
  audit->setObjectName(QStringLiteral("exportAuditReportAction"));
  audit->setToolTip(tr("The lint --report page of the whole dataset: verdict, counts, rows drawn per rule"));
  file->addAction(tr("Export &training template\u2026"), this, [this] {
    const QString f = QFileDialog::getSaveFileName(this, tr("Training template"), QStringLiteral("training.jinja"),
                                                   tr("Jinja template (*.jinja)"));
    QString err;
    if (!f.isEmpty() && !exportTrainingTemplate(f, &err)) QMessageBox::warning(this, tr("Export"), err);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::buildNavigateMenu() {
  QMenu* nav = menuBar()->addMenu(tr("&Navigate"));
  nav->addAction(tr("Next row"), QKeySequence(Qt::ALT | Qt::Key_Down), this, [this] { dataset_->step(1); });
  nav->addAction(tr("Previous row"), QKeySequence(Qt::ALT | Qt::Key_Up), this, [this] { dataset_->step(-1); });
  nav->addAction(tr("Next position"), QKeySequence(Qt::ALT | Qt::Key_Right), this,
                 [this] { session_->selectPosition(session_->selectedPosition() + 1); });
  nav->addAction(tr("Previous position"), QKeySequence(Qt::ALT | Qt::Key_Left), this,
                 [this] { session_->selectPosition(std::max(0, session_->selectedPosition() - 1)); });
  nav->addAction(tr("Search rows"), QKeySequence::Find, this, [this] { searchBox()->setFocus(); });
}

void MainWindow::buildViewMenu() {
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : layout_->docks()) view->addAction(d->toggleViewAction());
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
  connect(teaching_, &TeachingView::presenterToggled, this, &MainWindow::setPresenterMode);
  view->addAction(tr("Teaching mode"), this, &MainWindow::openTeaching);
  buildAttentionMenu(view);
}

// View > Attention implementation: the attention code whose mask the grid, the softmax view, the loss
// run and lint follow (core/mask/EffectiveAttention.h); the first entry follows what the batch implies.
void MainWindow::buildAttentionMenu(QMenu* view) {
  QMenu* menu = view->addMenu(tr("&Attention implementation"));
  menu->setObjectName(QStringLiteral("attentionMenu"));
  auto* group = new QActionGroup(menu);
  group->setExclusive(true);
  auto add = [&](const QString& name, const QString& text) {
    QAction* a = menu->addAction(text);
    a->setCheckable(true);
    a->setObjectName(QStringLiteral("attnImplementation:") + (name.isEmpty() ? QStringLiteral("implied") : name));
    a->setChecked(session_->attnImplementation() == name);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, name] { session_->setAttnImplementation(name); });
  };
  add(QString(), tr("As the batch implies"));
  menu->addSeparator();
  for (AttnImplementation impl : kAttnImplementations) {
    const QString name = QString::fromLatin1(attnImplementationName(impl));
    add(name, name);
  }
  connect(session_, &Session::attentionChanged, menu, [this, menu] { // a choice made elsewhere (snapshot)
    const QString name =
        session_->attnImplementation().isEmpty() ? QStringLiteral("implied") : session_->attnImplementation();
    for (QAction* a : menu->actions())
      if (a->objectName() == QStringLiteral("attnImplementation:") + name) a->setChecked(true);
  });
}

void MainWindow::buildModelMenu() {
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
  model->addAction(tr("Cancel the running pass"), this, [this] { model_->runner()->cancel(); });
}

void MainWindow::buildHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Legend and shortcuts\u2026"), QKeySequence(Qt::Key_F1), this, [this] {
    HelpDialog dialog(this, this);
    dialog.exec();
  });
  help->addAction(tr("&Teaching mode"), this, &MainWindow::openTeaching);
  if (persistent_) showFirstStartHint(this, [this] { openTeaching(); }); // the app only: not snapshots or tests
  help->addAction(tr("About maskscope"), this, [this] {
    QMessageBox::about(
        this, tr("maskscope"),
        tr("maskscope %1 shows and debugs the masks of LLM fine-tuning.\n\nIt only reads datasets, batch dumps, "
           "tokenizers, templates and models; it never edits them. Exports are written only where you choose.")
            .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::openTeaching() {
  showView(QStringLiteral("teaching"));
  if (teaching_->stepIndex() < 0) teaching_->goToStep(0);
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

QProgressDialog* MainWindow::auditProgressDialog() const { return auditProgress_.data(); }

bool MainWindow::exportAuditReport(const QString& path, QString* error) {
  if (!audit_) {
    audit_ = new AuditReportRunner(this);
    connect(audit_, &AuditReportRunner::finished, this, [this](bool ok, const QString& message) {
      if (auditProgress_) auditProgress_->deleteLater();
      if (ok)
        showStatus(tr("Audit report written (%1)").arg(message), 8000);
      else if (message == QLatin1String("cancelled"))
        showStatus(tr("Audit report cancelled; nothing written"), 8000);
      else
        QMessageBox::warning(this, tr("Audit report"), message);
    });
  }
  if (!audit_->start(*session_, path, error)) return false;
  auditProgress_ = new QProgressDialog(tr("Linting %1 for the audit report\u2026").arg(session_->datasetSpec()),
                                       tr("Cancel"), 0, 100, this);
  auditProgress_->setObjectName(QStringLiteral("auditProgressDialog"));
  auditProgress_->setWindowModality(Qt::WindowModal);
  auditProgress_->setMinimumDuration(0);
  connect(audit_, &AuditReportRunner::progressed, auditProgress_, [d = auditProgress_](int percent, long rows) {
    d->setValue(percent);
    d->setLabelText(QObject::tr("%1 rows linted").arg(rows));
  });
  connect(auditProgress_, &QProgressDialog::canceled, audit_, &AuditReportRunner::cancel);
  auditProgress_->show();
  return true;
}

} // namespace maskscope
