// Turns named integer tensors (from .safetensors or a torch.save(dict) .pt) into a Batch:
// input_ids, labels, optional attention_mask and position_ids, each [B, T] (a 1-D tensor is one
// row), and optional scalars pad_token_id / eos_token_id / bos_token_id.
#pragma once
#include "core/data/Batch.h"
#include "core/forward/ForwardEngine.h" // TensorGrid

#include <map>
#include <string>

namespace maskscope {

// Throws Error naming the file and tensor on a missing tensor, a non-integer dtype, a rank other
// than 1 or 2, or shapes that differ. A missing attention_mask becomes all ones (what the model
// assumes; padding-free collators write none).
// strictShapes = false keeps tensors whose shapes differ (for the shape-mismatch lint rule).
Batch batchFromTensors(const std::map<std::string, TensorGrid>& tensors, const std::string& file,
                       bool strictShapes = true);

// A 4-D attention_mask [B, 1, T, T] (values 0/1, 1 = the query may attend the key, as transformers' sdpa_mask
// builds it) into batch.attentionMask4d, with its diagonal as the 2-D attentionMask. Throws Error naming the
// file and field on another shape, a B or T that differs from input_ids', or a value other than 0/1.
void setAttentionMask4d(Batch& batch, const std::vector<int64_t>& shape, const std::vector<int64_t>& values,
                        const std::string& file);

// cu_seq_lens ([0, end1, ..., T] of one flattened row) into batch.segments. Throws Error naming the file
// and key when the batch has more than one row, or the offsets do not run up from 0 within the row.
void setCuSeqLens(Batch& batch, const std::vector<int64_t>& cu, const std::string& file, const std::string& key);

// Throws Error naming the first of attention_mask, labels, position_ids whose shape differs from
// input_ids' (an empty position_ids grid means "not given" and passes).
void checkBatchShapes(const Batch& batch, const std::string& file);

} // namespace maskscope
