// A bound on how deep a YAML text nests, found by a line scan before yaml-cpp sees the text:
// yaml-cpp's parser recurses once per nesting level (its own guard allows 2000 levels, far more
// than a worker thread's stack is sized for), so deep input must be refused before parsing.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace maskscope::yaml {

struct YamlTooDeep {
  long line = 1, column = 1; // 1-based, where the estimate first passes the limit
  int limit = 0;
  std::string message() const;
};

// An upper bound of the nesting at each line: open indentation levels, compact "- " / "? " / ": "
// indicators at the line's start, one for a "key:" on it, and open flow brackets [ { (quote- and
// comment-aware; block scalar bodies skipped). Returns where it first exceeds maxDepth, or nothing.
std::optional<YamlTooDeep> findYamlTooDeep(std::string_view text, int maxDepth);

} // namespace maskscope::yaml
