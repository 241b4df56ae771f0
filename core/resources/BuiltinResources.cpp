// Listing helpers over the generated table of embedded resources.
#include "core/resources/BuiltinResources.h"

namespace maskscope {

std::vector<std::string> builtinResourceNames(std::string_view prefix) {
  std::vector<std::string> names;
  for (int i = 0;; ++i) {
    std::string_view n = builtinResourceName(i);
    if (n.empty()) break;
    if (n.starts_with(prefix)) names.emplace_back(n);
  }
  return names;
}

} // namespace maskscope
