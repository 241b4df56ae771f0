// Loads a batch dump of any supported format, chosen by extension: .json/.jsonl, .safetensors, .pt.
#pragma once
#include "core/data/Batch.h"

#include <string>

namespace maskscope {

Batch loadBatchDump(const std::string& path);
bool looksLikeBatchDump(const std::string& path); // by extension and, for JSON, by its keys

} // namespace maskscope
