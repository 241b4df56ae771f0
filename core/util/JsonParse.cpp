// JSON parsing with the parser's message kept, for row-level and file-level errors.
#include "core/util/JsonParse.h"

namespace maskscope {

nlohmann::json parseJsonOrExplain(const std::string& text, std::string* error, long* byteOffset) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("parse error");
    if (error) *error = pos == std::string::npos ? what : what.substr(pos);
    if (byteOffset) *byteOffset = long(e.byte);
  }
  return nlohmann::json(nlohmann::json::value_t::discarded);
}

} // namespace maskscope
