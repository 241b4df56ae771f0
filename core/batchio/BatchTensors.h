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

// Throws Error naming the first of attention_mask, labels, position_ids whose shape differs from
// input_ids' (an empty position_ids grid means "not given" and passes).
void checkBatchShapes(const Batch& batch, const std::string& file);

} // namespace maskscope
