// Desktop start-up: QApplication, fonts for every script, the session on the named files or demo.
#include "ui/AppLauncher.h"
#include "ui/MainWindow.h"
#include "ui/Session.h"

#include <QApplication>
#include <QMessageBox>

namespace maskscope {

int launchDesktopApp(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("maskscope"));
  QApplication::setOrganizationName(QStringLiteral("maskscope"));
  QApplication::setApplicationVersion(QStringLiteral(MASKSCOPE_VERSION));
  Session session;
  MainWindow window(&session);
  QStringList files = QApplication::arguments().mid(1);
  QString dataset = files.isEmpty() ? QStringLiteral("builtin:demo") : files.first();
  if (!session.openDataset(dataset) && dataset != QStringLiteral("builtin:demo")) session.openDataset(QStringLiteral("builtin:demo"));
  window.show();
  return app.exec();
}

} // namespace maskscope
