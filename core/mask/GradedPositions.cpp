// Graded positions beyond one (see GradedPositions.h; the test itself is gradedLabel).
#include "core/mask/GradedPositions.h"
#include "core/mask/RowFacts.h"

namespace maskscope {

int64_t gradedInBatch(const Batch& b) {
  int64_t n = 0;
  for (int64_t r = 0; r < b.batchSize(); ++r) n += gradedInRow(b, r);
  return n;
}

int64_t gradedInLabels(const std::vector<int64_t>& labels) {
  int64_t n = 0;
  for (size_t t = 0; t < labels.size(); ++t) n += gradedLabel(int64_t(t), labels[t]);
  return n;
}

std::vector<GradedRun> gradedRuns(const Batch& b, int64_t r) {
  std::vector<GradedRun> runs;
  for (int64_t t = 1; t < b.length(); ++t) {
    if (!gradedAt(b, r, t)) continue;
    if (!runs.empty() && runs.back().end == t)
      runs.back().end = t + 1;
    else
      runs.push_back({t, t + 1});
  }
  return runs;
}

} // namespace maskscope
