// Parsing JSON from untrusted text with a readable error (what went wrong and at which byte).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace maskscope {

// Parses text; on failure returns a discarded value and sets *error to the parser's message.
nlohmann::json parseJsonOrExplain(const std::string& text, std::string* error, long* byteOffset = nullptr);
// The same, keeping object keys in file order.
nlohmann::ordered_json parseOrderedJsonOrExplain(const std::string& text, std::string* error,
                                                 long* byteOffset = nullptr);

} // namespace maskscope
