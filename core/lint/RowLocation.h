// Where a dataset row sits in its file, as findings name it: the 1-based line (a JSON list: the
// line of the row's opening brace) and, in a JSON-list file, the row's index in the list. The row
// number (0-based among readable rows) drifts from both after an unreadable line; these do not.
#pragma once
#include "core/lint/LintTypes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace maskscope {

struct RowLocation {
  long line = -1; // 1-based; -1 when unknown
  long item = -1; // JSON-list files only
};

// "line 12", "item 4 (line 40)" in a JSON list, or "row N" when the file position is unknown.
std::string locationLabel(int64_t row, const RowLocation& at);
// Sets the finding's line and item (when known).
void locate(Finding& f, const RowLocation& at);

// The locations of consecutive dataset rows first, first + 1, ... (one micro-batch).
class RowLocations {
public:
  void add(int64_t row, RowLocation at);
  const RowLocation* find(int64_t row) const; // null when the row is not among them
  // "row N" as findings start: locationLabel() of the row, or "row N" when it is not here.
  std::string label(int64_t row) const;
  // Line and item of every finding about one of these rows that lacks them.
  void locateAll(std::vector<Finding>& findings) const;

private:
  int64_t first_ = -1;
  std::vector<RowLocation> at_;
};

} // namespace maskscope
