// Finding the strip's runs from a row's position metadata (core/data/Batch.h's PositionMeta).
#include "ui/views/tokens/StripRuns.h"
#include "core/data/ToolNames.h"
#include "core/mask/RowFacts.h"

namespace maskscope {

namespace {

// A position's run key: the kind it belongs to (or none) and what must stay equal along the run.
struct RunKey {
  bool any = false;
  StripRun::Kind kind = StripRun::Kind::ToolCall;
  int64_t same = 0; // the tool name's number, or the image token's id
  bool operator==(const RunKey&) const = default;
};

RunKey keyAt(const Batch& b, int r, int64_t t) {
  const PositionMeta& m = b.meta[size_t(r)][size_t(t)];
  if (m.kind == PositionKind::ToolCall) return {true, StripRun::Kind::ToolCall, m.toolName};
  if (m.kind == PositionKind::Tool && m.toolName != 0) return {true, StripRun::Kind::ToolOutput, m.toolName};
  if (m.kind == PositionKind::Image) return {true, StripRun::Kind::Image, b.inputIds.at(r, t)};
  return {};
}

} // namespace

std::vector<StripRun> stripRuns(const Batch& b, int r) {
  std::vector<StripRun> runs;
  if (r < 0 || size_t(r) >= b.meta.size() || int64_t(b.meta[size_t(r)].size()) != b.length()) return runs;
  const bool haveLabels = b.labels.sameShape(b.inputIds);
  for (int64_t t = 0; t < b.length();) {
    const RunKey key = keyAt(b, r, t);
    int64_t end = t + 1;
    while (end < b.length() && keyAt(b, r, end) == key) ++end;
    const bool image = key.kind == StripRun::Kind::Image;
    if (key.any && (!image || end - t >= kMinFoldedRun)) {
      StripRun run;
      run.kind = key.kind;
      run.begin = int(t);
      run.end = int(end);
      if (!image) run.name = QString::fromStdString(toolNameOf(uint16_t(key.same)));
      for (int64_t u = t; haveLabels && u < end; ++u) run.graded += gradedAt(b, r, u) ? 1 : 0;
      run.folded = image;
      runs.push_back(std::move(run));
    }
    t = end;
  }
  return runs;
}

} // namespace maskscope
