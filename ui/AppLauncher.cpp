// Desktop start-up: QApplication, the session on the named files (datasets, batch dumps, model
// folders) or the demo, a persistent main window (layout and choices remembered). The forward
// engine (LibTorch) is not touched here: it loads on first use, off the UI thread.
#include "ui/AppLauncher.h"
#include "ui/MainWindow.h"
#include "ui/Palette.h"
#include "ui/Session.h"

#include <QApplication>
#include <QSettings>

namespace maskscope {

int launchDesktopApp(int argc, char** argv) {
  QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("maskscope"));
  QApplication::setOrganizationName(QStringLiteral("maskscope"));
  QApplication::setApplicationVersion(QStringLiteral(MASKSCOPE_VERSION));
  QApplication::setStyle(QStringLiteral("Fusion"));
  palette::setTheme(QSettings().value(QStringLiteral("darkTheme")).toBool() ? palette::Theme::Dark : palette::Theme::Light);
  Session session;
  const QStringList files = QApplication::arguments().mid(1);
  for (const QString& f : files) session.openPath(f); // errors reach the status bar once the window is up
  if (session.source() == Session::Source::None) session.openDataset(QStringLiteral("builtin:demo"));
  MainWindow window(&session, nullptr, true);
  window.show();
  return app.exec();
}

} // namespace maskscope
