// Where row-, conversation- and content-rule findings point (see RuleInput.h).
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

std::pair<int64_t, int64_t> RowInput::gradedAndReal(const ExampleRange& ex) const {
  int64_t graded = 0, real = 0;
  for (int64_t t = ex.begin; t < ex.end; ++t) {
    if (L.pad[size_t(t)]) continue;
    ++real;
    graded += this->graded(t);
  }
  return {graded, real};
}

std::string RowInput::label(int64_t t) const {
  const int64_t row = at(t).row;
  return o.locations ? o.locations->label(row) : "row " + num(row);
}

void RowInput::emit(const char* rule, int64_t t, std::string message, std::optional<Severity> severity) const {
  const Where w = at(t);
  Finding f = makeFinding(rule, w.row, w.position, std::move(message), severity);
  if (o.locations)
    if (const RowLocation* loc = o.locations->find(w.row)) locate(f, *loc);
  out.add(std::move(f));
}

void ConversationInput::emit(const char* rule, std::optional<int64_t> position, std::string message,
                             std::optional<Severity> severity) const {
  Finding f = makeFinding(rule, row, position, std::move(message), severity);
  locate(f, location);
  out.add(std::move(f));
}

void RowContentInput::emit(const char* rule, std::string message, std::optional<int64_t> position,
                           std::optional<Severity> severity) const {
  Finding f = makeFinding(rule, conversation.rowIndex, position, std::move(message), severity);
  locate(f, location);
  out.add(std::move(f));
}

} // namespace maskscope
