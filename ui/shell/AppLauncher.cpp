// Desktop start-up: QApplication, the session on the named files (datasets, batch dumps, model
// folders) or the demo, a persistent main window (layout and choices remembered). The forward
// engine (LibTorch) is not touched here: it loads on first use, off the UI thread.
#include "ui/shell/AppLauncher.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/widgets/Palette.h"

#include <QApplication>
#include <QIcon>
#include <QMessageBox>
#include <QSettings>
#include <QTimer>
#include <cstdio>

namespace maskscope {

int launchDesktopApp(int argc, char** argv) {
  QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("maskscope"));
  QApplication::setOrganizationName(QStringLiteral("maskscope"));
  QApplication::setApplicationVersion(QStringLiteral(MASKSCOPE_VERSION));
  QApplication::setStyle(QStringLiteral("Fusion"));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/maskscope.svg")));
  palette::setTheme(QSettings().value(QStringLiteral("darkTheme")).toBool() ? palette::Theme::Dark
                                                                            : palette::Theme::Light);
  Session session;
  // Files named on the command line open before the window exists: keep their errors and show
  // them (and print them) once it is up, so a typo in a path is never silently replaced by the demo.
  QStringList openErrors;
  auto collect = QObject::connect(&session, &Session::errorOccurred, [&](const QString& m) { openErrors << m; });
  const QStringList files = QApplication::arguments().mid(1);
  for (const QString& f : files) session.openPath(f);
  if (session.source() == Session::Source::None) session.openDataset(QStringLiteral("builtin:demo"));
  QObject::disconnect(collect);
  MainWindow window(&session, nullptr, true);
  window.show();
  if (!openErrors.isEmpty()) {
    for (const QString& e : openErrors) fprintf(stderr, "maskscope: %s\n", qPrintable(e));
    QTimer::singleShot(0, &window, [&window, openErrors] {
      QMessageBox::warning(&window, QObject::tr("Could not open"), openErrors.join(QStringLiteral("\n\n")));
    });
  }
  return app.exec();
}

} // namespace maskscope
