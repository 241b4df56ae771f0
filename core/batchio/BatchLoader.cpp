// Dispatch of batch dumps by file type. Every loaded batch gets its packed segments recovered
// (segment ids in attention_mask, or position ids restarting at 0).
#include "core/batchio/BatchLoader.h"
#include "core/batchio/BatchJson.h"
#include "core/batchio/BatchTensors.h"
#include "core/batchio/SafetensorsReader.h"
#include "core/forward/ForwardEngineLoader.h"
#include "core/mask/PackedSegments.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <fstream>

namespace maskscope {

namespace {

const char* const kBatchTensorNames[] = {"input_ids",    "attention_mask", "labels",      "position_ids",
                                         "pad_token_id", "eos_token_id",   "bos_token_id"};

} // namespace

Batch readSafetensorsBatch(const std::string& path, bool strictShapes) {
  SafetensorsFile f(path);
  std::map<std::string, TensorGrid> tensors;
  for (const char* name : kBatchTensorNames)
    if (f.find(name)) tensors[name] = f.readIntegers(name);
  return batchFromTensors(tensors, path, strictShapes);
}

Batch readTorchBatch(const std::string& path, bool strictShapes) {
  std::string why;
  std::shared_ptr<ForwardEngine> engine = loadForwardEngine(&why);
  if (!engine)
    throw Error("reading a .pt batch needs the LibTorch module (" + std::string(kForwardEngineFileName) +
                    "), which is not available: " + why +
                    ". Save the batch with safetensors "
                    "(safetensors.torch.save_file) or as JSON instead.",
                {path});
  std::map<std::string, TensorGrid> all;
  try {
    all = engine->loadTorchBatch(path);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(e.what(), {path});
  }
  std::map<std::string, TensorGrid> tensors;
  for (const char* name : kBatchTensorNames)
    if (auto it = all.find(name); it != all.end()) tensors[name] = std::move(it->second);
  return batchFromTensors(tensors, path, strictShapes);
}

Batch loadBatchDump(const std::string& path, bool strictShapes) {
  if (!fileExists(path)) throw Error("no such batch file", {path});
  Batch b;
  if (path.ends_with(".json") || path.ends_with(".jsonl"))
    b = readJsonBatch(path, strictShapes);
  else if (path.ends_with(".safetensors"))
    b = readSafetensorsBatch(path, strictShapes);
  else if (path.ends_with(".pt") || path.ends_with(".pth") || path.ends_with(".bin"))
    b = readTorchBatch(path, strictShapes);
  else
    throw Error("unsupported batch file type (expected .json, .jsonl, .safetensors or .pt)", {path});
  deriveSegments(b);
  return b;
}

bool looksLikeBatchDump(const std::string& path) {
  if (path.ends_with(".safetensors") || path.ends_with(".pt") || path.ends_with(".pth")) return true;
  if (!(path.ends_with(".json") || path.ends_with(".jsonl"))) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), long(head.size()));
  head.resize(size_t(in.gcount()));
  return head.find("\"input_ids\"") != std::string::npos;
}

} // namespace maskscope
