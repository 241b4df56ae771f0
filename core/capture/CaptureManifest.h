// A capture folder (docs/capture.md): batch-NNNN.safetensors files written inside the user's own
// trainer by the maskscope_capture Python module, and capture.json, the manifest saying which
// tokenizer, chat template, special-token ids, collator, trainer and framework versions built them.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

inline constexpr const char* kCaptureManifestName = "capture.json";
inline constexpr int64_t kMaxCaptureManifestBytes = int64_t(16) << 20; // 16 MiB: text and facts, no tensors
inline constexpr size_t kMaxCaptureBatches = 1024;

struct CaptureManifest {
  std::string folder;                  // the capture folder as given
  std::string format;                  // "maskscope-capture/1"
  std::vector<std::string> batchFiles; // paths (folder/batch-0000.safetensors), in the manifest's order
  std::string tokenizerFolder;         // folder/tokenizer when it holds a tokenizer file; else empty
  std::string templateFile;            // folder/chat_template.jinja when written; else empty
  std::string tokenizerName;           // the trainer's tokenizer name_or_path ("Qwen/Qwen3-0.6B")
  std::optional<int64_t> padTokenId, eosTokenId, bosTokenId;
  std::string paddingSide;                                     // "right", "left" or empty
  std::string trainerClass, trainerModule;                     // empty without a trainer (wrap_collator)
  std::string collatorClass, collatorModule;                   // the collator that built the batches
  std::vector<std::pair<std::string, std::string>> frameworks; // name, version (imported in the run)
  std::string writtenBy, created;
  nlohmann::json facts; // the user's own keyword facts (JSON object), capped; null when none

  // The `capture` object of the commands' JSON output (docs/cli.md).
  nlohmann::json toJson() const;
  // Lines for the text output: "capture: ...", "trainer: ...", "collator: ...", "frameworks: ...".
  std::string summaryText() const;
  // One line: trainer (or collator) and the framework versions, for a window title or a status bar.
  std::string oneLine() const;
};

// True when path is a folder holding capture.json.
bool isCaptureFolder(const std::string& path);
// The capture folder a batch file lies in (its parent holds capture.json), else empty.
std::string captureFolderOf(const std::string& batchFile);
// Reads and checks folder/capture.json (size cap, JSON depth cap, field types, batch file names that
// stay inside the folder and exist). Throws Error naming capture.json and the field.
CaptureManifest readCaptureManifest(const std::string& folder);

} // namespace maskscope
