// Access to files compiled into the binary (see cmake/MaskscopeEmbed.cmake).
// Names look like "demo/dataset.jsonl", "templates/chatml.jinja", "models/tiny/config.json".
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope {

std::optional<std::string_view> builtinResource(std::string_view name);
// The i-th embedded name, or empty past the end.
std::string_view builtinResourceName(int i);
// Every embedded name that starts with prefix, in embedding order.
std::vector<std::string> builtinResourceNames(std::string_view prefix = {});

} // namespace maskscope
