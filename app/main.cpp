// maskscope entry point: a headless command when the first argument names one, else the app.
#include "app/CommandLine.h"
#include "ui/shell/AppLauncher.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

static bool haveDisplay() {
  auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v && *v;
  };
  return set("DISPLAY") || set("WAYLAND_DISPLAY") || set("QT_QPA_PLATFORM");
}

int main(int argc, char** argv) {
  int status = maskscope::runHeadless(argc, argv);
  if (status >= 0) return status;
  if (!haveDisplay()) {
    // Qt would abort without a platform; say what to do instead.
    std::cerr << "maskscope: no display to open the app on (DISPLAY/WAYLAND_DISPLAY unset).\n"
                 "  Headless commands: tokenize, render, collate, lint, loss, snapshot (see --help).\n"
                 "  To run the app without a screen: QT_QPA_PLATFORM=offscreen or xvfb-run maskscope\n";
    return 2;
  }
  return maskscope::launchDesktopApp(argc, argv);
}
