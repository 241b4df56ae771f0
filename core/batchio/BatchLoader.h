// Loads a batch dump of any supported format, chosen by extension: .json/.jsonl, .safetensors,
// .pt (torch.save(dict), read through the LibTorch module). Shapes are checked and the packed
// segments recovered (deriveSegments) for every format.
#pragma once
#include "core/data/Batch.h"

#include <string>

namespace maskscope {

// strictShapes = false keeps fields whose shapes differ (lint reports them as shape-mismatch
// instead of refusing the file); everything else is checked either way.
Batch loadBatchDump(const std::string& path, bool strictShapes = true);
bool looksLikeBatchDump(const std::string& path); // by extension and, for JSON, by its keys

Batch readSafetensorsBatch(const std::string& path, bool strictShapes = true);
// Throws Error naming the missing LibTorch module when it cannot be loaded.
Batch readTorchBatch(const std::string& path, bool strictShapes = true);

} // namespace maskscope
