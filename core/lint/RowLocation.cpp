// Row locations in findings (see RowLocation.h).
#include "core/lint/RowLocation.h"

namespace maskscope {

std::string locationLabel(int64_t row, const RowLocation& at) {
  if (at.line < 0) return "row " + std::to_string(row);
  if (at.item >= 0) return "item " + std::to_string(at.item) + " (line " + std::to_string(at.line) + ")";
  return "line " + std::to_string(at.line);
}

void locate(Finding& f, const RowLocation& at) {
  if (at.line >= 0) f.line = at.line;
  if (at.item >= 0) f.item = at.item;
}

void RowLocations::add(int64_t row, RowLocation at) {
  if (at_.empty()) first_ = row;
  if (row != first_ + int64_t(at_.size())) return; // not consecutive: only the run from the first is kept
  at_.push_back(at);
}

const RowLocation* RowLocations::find(int64_t row) const {
  if (row < first_ || row >= first_ + int64_t(at_.size())) return nullptr;
  return &at_[size_t(row - first_)];
}

std::string RowLocations::label(int64_t row) const {
  const RowLocation* at = find(row);
  return at ? locationLabel(row, *at) : "row " + std::to_string(row);
}

void RowLocations::locateAll(std::vector<Finding>& findings) const {
  for (Finding& f : findings)
    if (f.row && !f.line)
      if (const RowLocation* at = find(*f.row)) locate(f, *at);
}

} // namespace maskscope
