// Desktop start-up: QApplication, the session on the named files (datasets, batch dumps, model
// folders, framework configs) and options (--tokenizer, --template, --collator, --var) or the demo, a persistent main
// window (layout and choices remembered). The forward engine (LibTorch) is not touched here: it loads on first use, off
// the UI thread.
#include "ui/shell/AppLauncher.h"
#include "ui/shell/AppArguments.h"
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
  // `maskscope [FILE...] [--tokenizer T] [--template T] [--collator C] [--var k=v]` (ui/shell/AppArguments):
  // the command line checked it already (exit 2). Files open before the window exists; their errors
  // are kept and shown (and printed) once it is up, so a typo in a path is never silently replaced by
  // the demo. The collator and framework configs come after the window's remembered settings.
  const AppArguments args = parseAppArguments(QApplication::arguments().mid(1));
  QStringList openErrors;
  if (!args.error.isEmpty()) openErrors << args.error;
  openErrors << openAppFiles(session, args);
  MainWindow window(&session, nullptr, true);
  openErrors << applyAppCollator(window, session, args);
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
