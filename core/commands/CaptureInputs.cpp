// The options a capture's manifest supplies, and how the commands name the capture in their output.
#include "core/commands/CaptureInputs.h"

namespace maskscope {

CaptureChoice captureChoice(const CaptureManifest& m, const std::string& tokenizerGiven,
                            const std::string& templateGiven, const std::optional<int64_t>& padIdGiven) {
  CaptureChoice c;
  c.tokenizerSpec = tokenizerGiven.empty() ? m.tokenizerFolder : tokenizerGiven;
  c.tokenizerFromCapture = tokenizerGiven.empty() && !m.tokenizerFolder.empty();
  // The trainer's template goes with the trainer's tokenizer; another tokenizer brings its own.
  c.templateFromCapture = templateGiven.empty() && c.tokenizerFromCapture && !m.templateFile.empty();
  c.templateSpec = c.templateFromCapture ? m.templateFile : templateGiven;
  // The trainer's pad id travels with the batches (core/batchio/BatchLoader.cpp); --pad-id replaces it.
  c.padIdFromCapture = !padIdGiven && m.padTokenId.has_value();
  c.padId = padIdGiven ? padIdGiven : m.padTokenId;
  return c;
}

nlohmann::json captureJson(const CaptureManifest& m, const CaptureChoice& c) {
  using nlohmann::json;
  auto orNull = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  json j = m.toJson();
  j["used"] = {{"tokenizer", orNull(c.tokenizerSpec)},
               {"tokenizer_from_capture", c.tokenizerFromCapture},
               {"template", orNull(c.templateSpec)},
               {"template_from_capture", c.templateFromCapture},
               {"pad_token_id", c.padId ? json(*c.padId) : json(nullptr)},
               {"pad_id_from_capture", c.padIdFromCapture}};
  return j;
}

std::string captureText(const CaptureManifest& m, const CaptureChoice& c) {
  std::string s = m.summaryText();
  s += "  read with: tokenizer " +
       (c.tokenizerSpec.empty() ? std::string("none (give --tokenizer)")
                                : c.tokenizerSpec + (c.tokenizerFromCapture ? " (captured)" : " (given)")) +
       ", template " +
       (c.templateSpec.empty() ? std::string("the tokenizer's own")
                               : c.templateSpec + (c.templateFromCapture ? " (captured)" : " (given)")) +
       (c.padId ? ", pad id " + std::to_string(*c.padId) + (c.padIdFromCapture ? " (the trainer's)" : " (given)")
                : std::string()) +
       "\n";
  return s;
}

std::optional<CaptureManifest> applyCaptureInputs(BatchInputs& in, CaptureChoice* choiceOut) {
  if (in.batchFile.empty()) return std::nullopt;
  const bool folder = isCaptureFolder(in.batchFile);
  const std::string captureDir = folder                                   ? in.batchFile
                                 : in.batchFile.ends_with(".safetensors") ? captureFolderOf(in.batchFile)
                                                                          : std::string();
  if (captureDir.empty()) return std::nullopt;
  CaptureManifest m = readCaptureManifest(captureDir);
  if (folder) in.batchFile = m.batchFiles.front();
  const CaptureChoice c = captureChoice(m, in.tokenizerSpec, in.templateSpec);
  in.tokenizerSpec = c.tokenizerSpec;
  in.templateSpec = c.templateSpec;
  if (choiceOut) *choiceOut = c;
  return m;
}

} // namespace maskscope
