// What a command takes from a capture folder's manifest (core/capture/CaptureManifest.h) when the user
// gave no option for it: the captured tokenizer and the trainer's chat template (the trainer's
// special-token ids travel with the batches: core/batchio/BatchLoader.cpp). A given --tokenizer /
// --template / --pad-id wins and is used as given.
#pragma once
#include "core/capture/CaptureManifest.h"
#include "core/commands/BatchInputs.h"

#include <cstdint>
#include <optional>
#include <string>

namespace maskscope {

struct CaptureChoice {
  std::string tokenizerSpec;    // the given one, else the capture's tokenizer folder (empty: none)
  std::string templateSpec;     // the given one, else the capture's chat_template.jinja with its tokenizer
  std::optional<int64_t> padId; // --pad-id when given, else the trainer's (the batches carry it)
  bool tokenizerFromCapture = false;
  bool templateFromCapture = false;
  bool padIdFromCapture = false;
};

CaptureChoice captureChoice(const CaptureManifest& m, const std::string& tokenizerGiven,
                            const std::string& templateGiven, const std::optional<int64_t>& padIdGiven = std::nullopt);
// The `capture` object of a command's JSON: the manifest's facts plus what was used ("used").
nlohmann::json captureJson(const CaptureManifest& m, const CaptureChoice& c);
// The text summary: the manifest's lines plus the tokenizer and template used.
std::string captureText(const CaptureManifest& m, const CaptureChoice& c);

// For --batch (loss): a capture folder (its first batch) or a batch file inside one. Fills in the
// batch file, tokenizer and template from the manifest where the user gave none; nothing when
// --batch is no capture.
std::optional<CaptureManifest> applyCaptureInputs(BatchInputs& in, CaptureChoice* choice = nullptr);

} // namespace maskscope
