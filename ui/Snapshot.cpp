// Off-screen rendering of views: the same widgets the app shows, grabbed into a QImage.
#include "ui/Snapshot.h"
#include "core/util/Error.h"
#include "ui/AttentionGridView.h"
#include "ui/MainWindow.h"
#include "ui/Session.h"
#include "ui/TokenStripView.h"

#include <QApplication>
#include <QImage>
#include <QListWidget>
#include <memory>
#include <ostream>

namespace maskscope {

int runSnapshot(const SnapshotArgs& a, CommandIO& io) {
  if (a.out.empty()) throw Error("--out FILE.png is required");
  if (a.width < 64 || a.height < 64 || a.width > 16384 || a.height > 16384) throw Error("--size must be within 64x64 .. 16384x16384");
  std::unique_ptr<QApplication> ownApp;
  if (!QApplication::instance()) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "maskscope";
    static char* argv[] = {name, nullptr};
    ownApp = std::make_unique<QApplication>(argc, argv);
  }
  Session session;
  QString lastError;
  QObject::connect(&session, &Session::errorOccurred, [&](const QString& m) { lastError = m; });
  const BatchInputs& in = a.inputs;
  if (!in.tokenizerSpec.empty() || !in.templateSpec.empty() || in.collatorSpec != "default") {
    if (!session.setPipeline(QString::fromStdString(in.tokenizerSpec.empty() ? "builtin:demo" : in.tokenizerSpec),
                             QString::fromStdString(in.templateSpec), QString::fromStdString(in.collatorSpec)))
      throw Error(lastError.toStdString());
  }
  if (!session.openDataset(QString::fromStdString(in.dataSpec.empty() ? "builtin:demo" : in.dataSpec)))
    throw Error(lastError.toStdString());
  if (a.row < 0 || a.row >= session.rowCount())
    throw Error("--row " + std::to_string(a.row) + " is outside the dataset (" + std::to_string(session.rowCount()) + " rows)");
  session.selectRow(int(a.row));

  MainWindow window(&session);
  window.resize(a.width, a.height);
  QWidget* target = &window;
  if (a.view == "tokens") target = window.tokenStrip();
  else if (a.view == "attention") target = window.attentionGrid();
  else if (a.view != "window") throw Error("unknown view \"" + a.view + "\" (tokens, attention, window)");
  window.show();
  QApplication::processEvents();
  if (target != &window) {
    target->setParent(nullptr);
    target->resize(a.width, a.height);
    target->show();
    QApplication::processEvents();
  }
  QImage image = target->grab().toImage();
  if (image.isNull() || !image.save(QString::fromStdString(a.out), "PNG"))
    throw Error("could not write the PNG", {a.out});
  if (io.json) io.out << "{\"out\": \"" << a.out << "\", \"width\": " << image.width() << ", \"height\": " << image.height() << "}\n";
  else io.err << "wrote " << a.out << " (" << image.width() << "x" << image.height() << ")\n";
  return 0;
}

} // namespace maskscope
