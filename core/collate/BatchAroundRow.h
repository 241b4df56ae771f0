// The batch a dataset row trains in: the group of batchSize consecutive rows it falls in (a
// trainer without shuffling), collated by a pipeline, and which batch row holds it. The app's
// views and its compare mode both ask for it, so it is found in one place.
#pragma once
#include "core/collate/DatasetPipeline.h"

#include <functional>
#include <memory>
#include <vector>

namespace maskscope {

struct BatchAroundRow {
  Batch batch;
  int batchRow = 0; // the batch row holding the selected row (its packed example, when packed)
  int firstRow = 0; // the group: rows [firstRow, endRow) of the dataset
  int endRow = 0;
  TokenizedConversation selected; // the selected row as encoded (its tokens' text and spans)
};

// rows[row] and its group of batchSize rows through pipeline. Throws Error when a row cannot be
// encoded or collated; row must be a valid index and batchSize >= 1.
BatchAroundRow batchAroundRow(const DatasetPipeline& pipeline, const std::vector<Conversation>& rows, int row,
                              int batchSize);
// The same over rows read on demand (an offset index, core/data/DatasetIndex): only the group's
// rows are asked for, rowAt(r) with r in [0, rowCount).
BatchAroundRow batchAroundRow(const DatasetPipeline& pipeline, int rowCount,
                              const std::function<Conversation(int)>& rowAt, int row, int batchSize);
// The batch row holding dataset row `datasetRow` (by sourceRows, or a packed segment's source).
int batchRowHolding(const Batch& batch, long datasetRow);

} // namespace maskscope
