// Python's str.replace(old, new) on std::string: every occurrence, left to right, never re-scanning
// what was inserted. For code that reproduces Python string handling (LLaMA-Factory's formatters and
// mm plugins).
#pragma once
#include <string>
#include <string_view>

namespace maskscope {

inline std::string replaceAll(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

} // namespace maskscope
