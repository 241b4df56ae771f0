// lintBatchRun(): the batches of one training run (a framework's data-loader batches, one after
// another) linted as one report, so that the cost is linear in the rows and never one batch of the
// whole dataset. A run of one batch reports exactly what lintBatch() does.
#pragma once
#include "core/lint/BatchLinter.h"

#include <functional>

namespace maskscope {

// Fills `batch` with the run's next batch; false when there is none left.
using NextBatch = std::function<bool(Batch& batch)>;

// Lints every batch next() gives with context. Numbering: the rows of batch k follow those of the
// batches before it (batch k's row r is row offset_k + r, offset_k = the rows of batches 0..k-1), in
// findings and in the "row N" their messages start with. Once per run: the template checks and the
// rules-not-run notes (read on the first batch), and each statement about the whole input (a finding
// without a row, e.g. framework-rows-dropped): kept where it first appeared, with the text of its
// last batch (the caller's facts accumulate over the batches, framework-pad-is-eos counts the whole
// run). batch-nothing-graded stays per batch, naming the batch and its first row when there are
// several. rowsPerBatch: the trainer's batch size (summary.grad_accum.micro_batch_size).
LintReport lintBatchRun(const NextBatch& next, const LintContext& context, int rowsPerBatch);

} // namespace maskscope
