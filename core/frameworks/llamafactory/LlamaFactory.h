// LLaMA-Factory inside maskscope (internal to core/frameworks/llamafactory): the catalogue of versions and
// options, and the reading of a LLaMA-Factory YAML config (the keys of a `llamafactory-cli train` file)
// into a spec object.
#pragma once
#include "core/frameworks/Framework.h"
#include "core/frameworks/llamafactory/LlamaFactoryCollator.h"

#include <optional>
#include <string>

namespace maskscope::llamafactory {

FrameworkInfo catalogue();

// The collator's dict as the framework returns it: the features' keys in their order (input_ids,
// attention_mask, position_ids of packed rows; an attention_mask tokenizer.pad adds comes after them),
// then labels. attention_mask is the [B, 1, T, T] float mask, None, or the padded 2-D mask. Error when a
// 4-D mask would exceed kMaxFrameworkBatchCells.
FrameworkBatch toFrameworkBatch(const CollatedBatch& b, const PreparedRow& firstFeature, bool attentionGiven);
// The batch with its 4-D attention_mask read back into [B, T] example indices (1, 2, ... per example,
// 0 where a position attends to nothing): what prepare_4d_attention_mask was built from.
FrameworkBatch withSegmentIds(const FrameworkBatch& batch);

// A LLaMA-Factory training config (YAML, read as OmegaConf reads it) as a spec object: {"framework":
// "llamafactory", every key of the file}. nullopt when the file is not one (no stage / model_name_or_path
// with template, cutoff_len or finetuning_type). Throws Error naming the file for a YAML that does not
// parse.
std::optional<OrderedJson> readConfig(const std::string& path, const std::string& text);

} // namespace maskscope::llamafactory
