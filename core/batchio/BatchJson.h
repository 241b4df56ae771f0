// Batches as JSON: the collate command's output (docs/cli.md), and JSON/JSONL batch dumps a user's own
// collator wrote (lists of lists under input_ids, attention_mask, labels, position_ids).
#pragma once
#include "core/data/Batch.h"

#include <nlohmann/json.hpp>
#include <string>

namespace maskscope {

// {"input_ids": [[..]], "attention_mask": [[..]], "labels": [[..]], "position_ids": [[..]]}, keys
// in that order (docs/cli.md, `collate`); position_ids is null when the batch has none.
nlohmann::ordered_json batchToJson(const Batch& batch);
// Reads a batch dump object; throws Error naming the file and field on bad types or, when
// strictShapes, on fields whose shapes differ. A 1-D list is one row. attention_mask may be
// missing (padding-free collators write none): it becomes all ones.
Batch batchFromJson(const nlohmann::json& object, const std::string& file, bool strictShapes = true);
// Values a JSON/JSONL dump may hold (all tensors together): 16 Mi, e.g. 4 tensors of 128 x 32768,
// about 0.5 GB once parsed. Larger batches belong in safetensors, which is read without parsing.
inline constexpr size_t kMaxJsonDumpValues = size_t(1) << 24;
// A .json file holding one object, or a .jsonl file holding one object per row (each with 1-D lists).
Batch readJsonBatch(const std::string& path, bool strictShapes = true);

} // namespace maskscope
