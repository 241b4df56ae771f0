// Recovers which packed example each position belongs to from the batch alone, for dumps a
// user's own collator wrote: segment ids in attention_mask (1, 2, 3, ... as axolotl writes them),
// or position ids that restart at 0 (padding-free rows, reset packing), or separators followed by
// a conversation start (naive packing: EOS + BOS, <|im_end|><|im_start|>, a mid-row pad).
#pragma once
#include "core/data/Batch.h"

#include <vector>

namespace maskscope {

// Examples of one row, in order, [begin, end): a dump's own Batch::segments (cu_seq_lens) when it
// has them and no collator metadata, else recovered as above; padding (attention 0) belongs to none. Empty when
// the row holds a single example (or nothing shows the packing).
std::vector<Segment> segmentsOfRow(const Batch& batch, int64_t row);
// The recovery alone (segment ids, position-id restarts, separators), ignoring Batch::segments.
std::vector<Segment> recoveredSegmentsOfRow(const Batch& batch, int64_t row);
// Fills batch.segments (keeping a row's stated segments, such as a dump's cu_seq_lens) for every row (one entry per
// row, empty for unpacked rows).
void deriveSegments(Batch& batch);

} // namespace maskscope
