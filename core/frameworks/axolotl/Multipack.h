// Axolotl's sample packing bins (MultipackBatchSampler, src/axolotl/utils/samplers/multipack.py,
// v0.18.0): which rows share a packed sequence. By default (pack_parallel) each group of
// sample_packing_group_size rows is packed first-fit in the sampler's order into bins of
// batch_max_len tokens holding at most sample_packing_bin_size rows; sample_packing_sequentially
// fills bins strictly in order (allocate_sequentially). Bins are then grouped batch_size at a time,
// and an incomplete last batch is dropped (drop_last=True).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace maskscope::axolotl {

struct MultipackOptions {
  int64_t binCapacity = 0;    // batch_max_len: micro_batch_size x sequence_len (one bin per step)
  int64_t binSize = 200;      // sample_packing_bin_size
  int64_t groupSize = 100000; // sample_packing_group_size
  bool sequential = false;    // sample_packing_sequentially
  int64_t batchSize = 1;      // bins per batch (micro_batch_size with multipack_real_batches)
};

// Batches of bins of row indices (into lengths, which are in the sampler's order).
std::vector<std::vector<std::vector<size_t>>> multipackBatches(const std::vector<int64_t>& lengths,
                                                               const MultipackOptions& options);

} // namespace maskscope::axolotl
