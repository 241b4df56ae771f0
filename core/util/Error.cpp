// Formatting of error locations as "file:line:column (field): message".
#include "core/util/Error.h"

namespace maskscope {

std::string SourceLocation::toString() const {
  std::string s = file;
  if (line >= 0) s += ":" + std::to_string(line);
  if (line >= 0 && column >= 0) s += ":" + std::to_string(column);
  if (line < 0 && byteOffset >= 0) s += (s.empty() ? "byte " : ": byte ") + std::to_string(byteOffset);
  if (!field.empty()) s += (s.empty() ? "" : " ") + std::string("(") + field + ")";
  return s;
}

static std::string compose(const std::string& message, const SourceLocation& where) {
  std::string loc = where.toString();
  return loc.empty() ? message : loc + ": " + message;
}

Error::Error(const std::string& message, SourceLocation where)
    : std::runtime_error(compose(message, where)), message_(message), where_(std::move(where)) {}

} // namespace maskscope
