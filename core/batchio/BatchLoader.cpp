// Dispatch of batch dumps by file type. Every loaded batch gets its packed segments recovered
// (segment ids in attention_mask, or position ids restarting at 0), and a capture's batch the
// special-token ids of its manifest.
#include "core/batchio/BatchLoader.h"
#include "core/batchio/BatchJson.h"
#include "core/batchio/BatchTensors.h"
#include "core/batchio/SafetensorsReader.h"
#include "core/capture/CaptureManifest.h"
#include "core/forward/ForwardEngineLoader.h"
#include "core/mask/PackedSegments.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <fstream>

namespace maskscope {

namespace {

const char* const kBatchTensorNames[] = {"input_ids",     "attention_mask", "labels",       "position_ids",
                                         "pad_token_id",  "eos_token_id",   "bos_token_id", "cu_seq_lens_q",
                                         "cu_seq_lens_k", "cu_seq_lens",    "cu_seqlens"};

// What every command needs of a dump, whatever its format: at least one token, and no negative
// token ids, attention values or positions (labels may be negative: -100 and other ignore indices).
// Refused here once, so lint, loss, snapshot and the app all give the same exit-2 error.
void checkDumpValues(const Batch& b, const std::string& path) {
  if (b.batchSize() <= 0 || b.length() <= 0)
    throw Error("the batch dump holds no tokens (input_ids is empty)", {path, -1, -1, -1, "input_ids"});
  auto nonNegative = [&](const IntGrid& g, const char* name, const char* what) {
    for (int64_t r = 0; r < g.rows; ++r)
      for (int64_t t = 0; t < g.cols; ++t)
        if (g.at(r, t) < 0)
          throw Error(std::string(name) + "[" + std::to_string(r) + "][" + std::to_string(t) +
                          "] = " + std::to_string(g.at(r, t)) + ": " + what + " cannot be negative",
                      {path, -1, -1, -1, name});
  };
  nonNegative(b.inputIds, "input_ids", "a token id");
  nonNegative(b.attentionMask, "attention_mask", "an attention mask value");
  nonNegative(b.positionIds, "position_ids", "a position id");
}

// A batch file of a capture folder (core/capture/CaptureManifest.h) carries the trainer's special-token
// ids as a JSON dump carries its scalars: the manifest's pad, EOS and BOS ids where the file has none.
void applyCaptureIds(Batch& b, const std::string& path) {
  if (!path.ends_with(".safetensors")) return;
  const std::string folder = captureFolderOf(path);
  if (folder.empty()) return;
  const CaptureManifest m = readCaptureManifest(folder);
  if (!b.padTokenId) b.padTokenId = m.padTokenId;
  if (!b.eosTokenId) b.eosTokenId = m.eosTokenId;
  if (!b.bosTokenId) b.bosTokenId = m.bosTokenId;
}

} // namespace

Batch readSafetensorsBatch(const std::string& path, bool strictShapes) {
  SafetensorsReader f(path);
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
    const std::string message = e.what();
    if (message.rfind(path, 0) == 0) throw Error(message); // the engine named the file already
    throw Error(message, {path});
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
  checkDumpValues(b, path);
  applyCaptureIds(b, path);
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
