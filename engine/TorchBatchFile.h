// Reading a batch written by torch.save(dict) (.pt, the zip format) into plain integer grids, for
// ForwardEngine::loadTorchBatch.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <map>
#include <string>

namespace maskscope::engine {

// Each tensor of the saved dict (integer, bool, or floating point holding whole numbers) widened to
// int64, and int scalars (pad_token_id); None entries are skipped. Throws std::runtime_error naming
// the file and the key (not a torch.save dict, another type, over 3 dimensions or 256M values).
std::map<std::string, TensorGrid> readTorchBatch(const std::string& path);

} // namespace maskscope::engine
