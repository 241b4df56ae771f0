// Starts the desktop app (QApplication + main window) on the files named on the command line,
// or on the built-in demo.
#pragma once

namespace maskscope {

int launchDesktopApp(int argc, char** argv);

} // namespace maskscope
