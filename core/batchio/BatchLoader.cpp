// Dispatch of batch dumps by file type.
#include "core/batchio/BatchLoader.h"
#include "core/batchio/BatchJson.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <fstream>

namespace maskscope {

Batch loadBatchDump(const std::string& path) {
  if (!fileExists(path)) throw Error("no such batch file", {path});
  if (path.ends_with(".json") || path.ends_with(".jsonl")) return readJsonBatch(path);
  throw Error("unsupported batch file type (expected .json, .jsonl, .safetensors or .pt)", {path});
}

bool looksLikeBatchDump(const std::string& path) {
  if (path.ends_with(".safetensors") || path.ends_with(".pt")) return true;
  if (!(path.ends_with(".json") || path.ends_with(".jsonl"))) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), long(head.size()));
  head.resize(size_t(in.gcount()));
  return head.find("\"input_ids\"") != std::string::npos;
}

} // namespace maskscope
