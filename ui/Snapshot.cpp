// Off-screen rendering of views: the same widgets the app shows, each view rendered at the
// requested size through its own render function (the window through grab()).
#include "ui/Snapshot.h"
#include "core/forward/ModelSpec.h"
#include "core/util/Error.h"
#include "ui/AttentionGridView.h"
#include "ui/ComparePanel.h"
#include "ui/Export.h"
#include "ui/LintPanel.h"
#include "ui/LossView.h"
#include "ui/MainWindow.h"
#include "ui/ModelRunner.h"
#include "ui/Palette.h"
#include "ui/Session.h"
#include "ui/SoftmaxView.h"
#include "ui/TeachingPanel.h"
#include "ui/TokenStripView.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QScrollBar>
#include <memory>
#include <optional>
#include <ostream>

namespace maskscope {

const char* snapshotViewNames() { return "tokens, attention, softmax, loss, lint, compare, teaching, window"; }

int runSnapshot(const SnapshotArgs& a, CommandIO& io) {
  if (a.out.empty()) throw Error("--out FILE.png is required");
  if (a.width < 64 || a.height < 64 || a.width > 16384 || a.height > 16384)
    throw Error("--size must be within 64x64 .. 16384x16384");
  static const std::vector<std::string> views = {"tokens", "attention", "softmax",  "loss",
                                                 "lint",   "compare",   "teaching", "window"};
  if (std::find(views.begin(), views.end(), a.view) == views.end())
    throw Error("unknown view \"" + a.view + "\" (" + snapshotViewNames() + ")");
  if (a.theme != "light" && a.theme != "dark") throw Error("--theme must be light or dark, got \"" + a.theme + "\"");
  std::unique_ptr<QApplication> ownApp;
  if (!QApplication::instance()) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "maskscope";
    static char* argv[] = {name, nullptr};
    ownApp = std::make_unique<QApplication>(argc, argv);
  }
  QApplication::setStyle(QStringLiteral("Fusion"));
  palette::setTheme(a.theme == "dark" ? palette::Theme::Dark : palette::Theme::Light);

  Session session;
  QString lastError;
  QObject::connect(&session, &Session::errorOccurred, [&](const QString& m) { lastError = m; });
  const BatchInputs& in = a.inputs;
  if (!in.tokenizerSpec.empty() || !in.templateSpec.empty() || in.collatorSpec != "default") {
    if (!session.setPipeline(QString::fromStdString(in.tokenizerSpec.empty() ? "builtin:demo" : in.tokenizerSpec),
                             QString::fromStdString(in.templateSpec), QString::fromStdString(in.collatorSpec)))
      throw Error(lastError.toStdString());
  }
  const bool ok = in.batchFile.empty()
                      ? session.openDataset(QString::fromStdString(in.dataSpec.empty() ? "builtin:demo" : in.dataSpec))
                      : session.openBatchDump(QString::fromStdString(in.batchFile));
  if (!ok) throw Error(lastError.toStdString());
  if (a.row < 0 || a.row >= session.rowCount())
    throw Error("--row " + std::to_string(a.row) + " is outside the input (" + std::to_string(session.rowCount()) +
                " rows)");
  session.selectRow(int(a.row));
  if (a.position >= 0) {
    if (a.position >= session.batch().length())
      throw Error("--position " + std::to_string(a.position) + " is outside the row (" +
                  std::to_string(session.batch().length()) + " positions)");
    session.selectPosition(int(a.position));
  }

  // A model, when given, runs once here (synchronously: there is no UI to keep responsive).
  std::optional<ModelRun> run;
  if (!a.modelSpec.empty()) {
    auto model = loadForwardModel(a.modelSpec, "auto");
    run = runModelOnce(*model, session.batch(), 0, 0);
    if (!run->error.isEmpty()) throw Error("forward pass failed: " + run->error.toStdString(), {a.modelSpec});
  }
  const QString modelLabel = QString::fromStdString(a.modelSpec);

  MainWindow window(&session);
  window.setDarkTheme(a.theme == "dark");
  window.resize(a.width, a.height);
  const QSize size(a.width, a.height);
  QImage image;
  if (a.view == "window") {
    window.show();
    QApplication::processEvents();
    QApplication::processEvents(); // the first-show dock sizes are applied from a queued call
    image = window.grab().toImage();
  } else if (a.view == "tokens") {
    TokenStripView strip(&session);
    strip.resize(size);
    strip.show();
    QApplication::processEvents();
    int scroll = 0;
    if (session.selectedPosition() >= 0) scroll = strip.verticalScrollBar()->value();
    image = renderToImage([&](QPainter& p, QRect r) { strip.renderTo(p, r, scroll); }, size);
  } else if (a.view == "attention") {
    AttentionGridView grid(&session);
    grid.resize(size);
    if (a.zoom > 1.0) {
      const double n = double(grid.gridSize());
      const double side = n / a.zoom;
      const double c = session.selectedPosition() >= 0 ? session.selectedPosition() + 0.5 : n / 2;
      grid.setViewRect(QRectF(c - side / 2, c - side / 2, side, side));
    }
    image = renderToImage([&](QPainter& p, QRect r) { grid.render(p, r); }, size);
  } else if (a.view == "softmax") {
    SoftmaxView view(&session);
    if (run && !a.softmaxExample) {
      std::vector<float> probs = rowAttention(*run, session.batchRow(), session.batch().length());
      if (!probs.empty())
        view.setModelScores(
            scoresFromProbabilities(probs),
            QStringLiteral("%1: log attention probabilities, layer 0 head 0 (scores up to a per-row constant)")
                .arg(modelLabel));
    }
    if (a.softmaxExample) view.showTeachingExample();
    view.resize(size);
    image = renderToImage([&](QPainter& p, QRect r) { view.render(p, r); }, size);
  } else if (a.view == "loss") {
    LossView view(&session);
    if (run) view.setModelNll(run->output.perTokenNll, modelLabel);
    view.resize(size);
    image = renderToImage([&](QPainter& p, QRect r) { view.render(p, r); }, size);
  } else if (a.view == "lint") {
    LintPanel panel(&session);
    panel.resize(size);
    image = renderToImage([&](QPainter& p, QRect r) { panel.render(p, r); }, size);
  } else if (a.view == "compare" || a.view == "teaching") {
    QWidget* panel = nullptr;
    if (a.view == "compare") {
      panel = window.comparePanel();
      if (!a.compare.empty()) {
        const auto comma = a.compare.find(',');
        if (comma == std::string::npos) throw Error("--compare: expected A,B (two collator presets)");
        window.comparePanel()->setCollators(QString::fromStdString(a.compare.substr(0, comma)),
                                            QString::fromStdString(a.compare.substr(comma + 1)));
      }
    } else {
      // A teaching step drives the real views (collator, row, position, the view it explains):
      // the snapshot is the whole window with the step applied, as a class would see it.
      window.show();
      if (a.teachingStep > 0) window.teachingPanel()->goToStep(a.teachingStep - 1);
      window.showView(QStringLiteral("teaching"));
      QApplication::processEvents();
      QApplication::processEvents();
      image = window.grab().toImage();
    }
    if (panel) {
      panel->setParent(nullptr);
      panel->resize(size);
      panel->show();
      QApplication::processEvents();
      image = panel->grab().toImage();
      panel->setParent(&window);
    }
  }
  const QString out = QString::fromStdString(a.out);
  bool written = false;
  if (out.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
    written = exportSvg([&](QPainter& p, QRect) { p.drawImage(0, 0, image); }, image.size(), out,
                        QString::fromStdString(a.view));
  } else {
    written = !image.isNull() && image.save(out, "PNG");
  }
  if (!written) throw Error("could not write the image", {a.out});
  if (io.json)
    io.out << "{\"out\": \"" << a.out << "\", \"view\": \"" << a.view << "\", \"width\": " << image.width()
           << ", \"height\": " << image.height() << "}\n";
  else
    io.err << "wrote " << a.out << " (" << image.width() << "x" << image.height() << ")\n";
  return 0;
}

} // namespace maskscope
