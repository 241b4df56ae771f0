// Where row-rule findings point (see RuleInput.h).
#include "core/lint/rules/RuleInput.h"

namespace maskscope {

std::string num(int64_t v) { return std::to_string(v); }

int64_t RowInput::rowSource() const {
  if (!o.datasetPositions) return r;
  return size_t(r) < b.sourceRows.size() && b.sourceRows[size_t(r)] >= 0 ? b.sourceRows[size_t(r)] : r;
}

Where RowInput::at(int64_t t) const {
  if (!o.datasetPositions) return {r, t};
  // The example holding t, else the last one starting before it, else the first.
  const ExampleRange* ex = nullptr;
  for (const ExampleRange& e : L.examples) {
    if (t >= e.begin && t < e.end) {
      ex = &e;
      break;
    }
    if (t >= e.begin) ex = &e;
  }
  if (!ex && !L.examples.empty()) ex = &L.examples.front();
  if (!ex) return {rowSource(), std::nullopt};
  const int64_t src = ex->sourceRow >= 0 ? ex->sourceRow : rowSource();
  const int64_t rel = t - ex->begin;
  return {src, rel >= 0 ? std::optional<int64_t>(rel) : std::nullopt};
}

std::string RowInput::label(int64_t t) const { return "row " + num(at(t).row); }

void RowInput::emit(const char* rule, int64_t t, std::string message, std::optional<Severity> severity) const {
  const Where w = at(t);
  out.add(rule, w.row, w.position, std::move(message), severity);
}

} // namespace maskscope
