// The error type every core parser throws: a message plus where in which input it happened.
// Commands turn it into exit status 2 with "file:line:column: message" on stderr.
#pragma once
#include <stdexcept>
#include <string>

namespace maskscope {

struct SourceLocation {
  std::string file;     // path or spec of the input ("builtin:demo", "row 3")
  long line = -1;       // 1-based, -1 when unknown
  long column = -1;     // 1-based, -1 when unknown
  long byteOffset = -1; // 0-based, -1 when unknown
  std::string field;    // JSON field or tensor name, empty when unknown

  std::string toString() const;
};

class Error : public std::runtime_error {
public:
  explicit Error(const std::string& message, SourceLocation where = {});
  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

private:
  std::string message_;
  SourceLocation where_;
};

} // namespace maskscope
