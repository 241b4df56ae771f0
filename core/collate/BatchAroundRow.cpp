// The group around a row, collated; see BatchAroundRow.h.
#include "core/collate/BatchAroundRow.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

int batchRowHolding(const Batch& b, long wanted) {
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    bool holds = size_t(r) < b.sourceRows.size() && b.sourceRows[size_t(r)] == wanted;
    if (size_t(r) < b.segments.size())
      for (const Segment& s : b.segments[size_t(r)]) holds = holds || s.sourceRow == wanted;
    if (holds) return int(r);
  }
  return 0;
}

BatchAroundRow batchAroundRow(const DatasetPipeline& pipeline, const std::vector<Conversation>& rows, int row,
                              int batchSize) {
  return batchAroundRow(
      pipeline, int(rows.size()), [&rows](int r) { return rows[size_t(r)]; }, row, batchSize);
}

BatchAroundRow batchAroundRow(const DatasetPipeline& pipeline, int rowCount,
                              const std::function<Conversation(int)>& rowAt, int row, int batchSize) {
  if (row < 0 || row >= rowCount || batchSize < 1)
    throw Error("row " + std::to_string(row) + " is outside the dataset (" + std::to_string(rowCount) + " rows)");
  BatchAroundRow out;
  out.firstRow = row - row % batchSize;
  out.endRow = std::min(rowCount, out.firstRow + batchSize);
  std::vector<TokenizedConversation> encoded;
  long selectedIndex = -1;
  for (int r = out.firstRow; r < out.endRow; ++r) {
    const Conversation c = rowAt(r);
    encoded.push_back(pipeline.encode(c));
    if (r == row) {
      out.selected = encoded.back();
      selectedIndex = c.rowIndex;
    }
  }
  out.batch = pipeline.collate(encoded);
  out.batchRow = batchRowHolding(out.batch, selectedIndex);
  return out;
}

} // namespace maskscope
