// Error-to-exit-status mapping shared by every command.
#include "core/commands/CommandIO.h"
#include "core/util/Error.h"
#include "core/util/Utf8.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace maskscope {

namespace {

// An error message as the terminal should see it: messages quote hostile input (invalid UTF-8, NUL
// and escape bytes, megabyte tokens), so invalid bytes become U+FFFD, control bytes \xNN, and the
// message stops after kMaxErrorBytes.
constexpr size_t kMaxErrorBytes = 1500;

std::string printable(std::string_view what) {
  const std::string text = utf8::sanitize(what);
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (out.size() >= kMaxErrorBytes && (c & 0xC0) != 0x80) {
      out += "... (" + std::to_string(text.size() - i) + " more bytes)";
      break;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else
      out += char(c);
  }
  return out;
}

} // namespace

int runCommand(CommandIO& io, const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& e) {
    io.err << "maskscope: error: " << printable(e.what()) << "\n";
  } catch (const std::bad_alloc&) {
    io.err << "maskscope: error: out of memory\n";
  } catch (const std::exception& e) {
    io.err << "maskscope: error: " << printable(e.what()) << "\n";
  }
  return 2;
}

std::string formatNumber(double value, const char* printfFormat) {
  if (std::isnan(value)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, printfFormat, value);
  return buf;
}

} // namespace maskscope
