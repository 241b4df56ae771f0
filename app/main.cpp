// maskscope entry point: a headless command when the first argument names one, else the app.
#include "app/CommandLine.h"
#include "ui/AppLauncher.h"

int main(int argc, char** argv) {
  int status = maskscope::runHeadless(argc, argv);
  if (status >= 0) return status;
  return maskscope::launchDesktopApp(argc, argv);
}
