// Command-line parsing: decides between the desktop app and a headless command, and runs it.
#pragma once
#include <string>

namespace maskscope {

// Returns the exit status of a headless command, or -1 when the desktop app should open.
int runHeadless(int argc, char** argv);

// The headless commands' names in --help order, comma-separated ("tokenize, collate, ...").
std::string headlessCommandList();

} // namespace maskscope
