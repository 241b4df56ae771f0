// A framework's batch as maskscope's Batch (core/data/Batch.h), so that lint, loss, snapshot and the
// app judge exactly what the framework built: ids, labels (shifted back to the Hugging Face
// convention when the framework pre-shifts them), attention (0/1, or segment ids for packed rows),
// position ids, and the packed segments (from cu_seq_lens, seq_lengths or position-id restarts).
#pragma once
#include "core/data/Batch.h"
#include "core/frameworks/Framework.h"

#include <vector>

namespace maskscope {

// rows: the prepared rows the batch was collated from, in order (their meta and source rows are
// laid onto the batch rows when the row counts and lengths allow; flattened rows concatenate them).
// Error naming the key when a tensor the conventions name has the wrong shape.
Batch convertFrameworkBatch(const FrameworkBatch& batch, const BatchConventions& conventions,
                            const std::vector<PreparedRow>& rows, const FrameworkFacts& facts);

} // namespace maskscope
