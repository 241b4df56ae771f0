// Error-to-exit-status mapping shared by every command.
#include "core/commands/CommandIO.h"
#include "core/util/Error.h"

#include <ostream>

namespace maskscope {

int runCommand(CommandIO& io, const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& e) {
    io.err << "maskscope: error: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    io.err << "maskscope: error: out of memory\n";
  } catch (const std::exception& e) {
    io.err << "maskscope: error: " << e.what() << "\n";
  }
  return 2;
}

} // namespace maskscope
