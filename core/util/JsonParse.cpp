// JSON parsing with the parser's message kept, for row-level and file-level errors.
#include "core/util/JsonParse.h"

namespace maskscope {

template <class Json> static Json parseOrExplain(const std::string& text, std::string* error, long* byteOffset) {
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("parse error");
    if (error) *error = pos == std::string::npos ? what : what.substr(pos);
    if (byteOffset) *byteOffset = long(e.byte);
  }
  return Json(Json::value_t::discarded);
}

nlohmann::json parseJsonOrExplain(const std::string& text, std::string* error, long* byteOffset) {
  return parseOrExplain<nlohmann::json>(text, error, byteOffset);
}

nlohmann::ordered_json parseOrderedJsonOrExplain(const std::string& text, std::string* error, long* byteOffset) {
  return parseOrExplain<nlohmann::ordered_json>(text, error, byteOffset);
}

} // namespace maskscope
