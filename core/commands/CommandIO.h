// What every headless command gets: where to print, and whether to print JSON.
// Commands return the process exit status: 0 success, 1 ran and found problems, 2 unusable input.
// They throw maskscope::Error for unusable input; runCommand() turns that into exit 2.
#pragma once
#include <functional>
#include <iosfwd>
#include <string>

namespace maskscope {

struct CommandIO {
  std::ostream& out; // machine output (--json) or the human report
  std::ostream& err; // messages, warnings, progress
  bool json = false;
  bool colour = false; // stdout is a terminal that takes ANSI colour
};

// A number for a text report: printfFormat applied, "n/a" for NaN (nothing graded).
std::string formatNumber(double value, const char* printfFormat = "%.4f");

// Runs body, mapping maskscope::Error / std::exception to a message on err and exit status 2.
int runCommand(CommandIO& io, const std::function<int()>& body);

} // namespace maskscope
