// Opening a capture folder (docs/capture.md) in a Session: a batch of it as a batch dump, decoded with
// the captured tokenizer and chat template unless others are given (as `maskscope lint CAPTURE_DIR`
// reads it), and the manifest's one-line description for the window's summary.
#pragma once
#include <QString>

namespace maskscope {

class Session;

// batchFile empty: the capture's first batch. False (and the session's errorOccurred) when the manifest
// or the batch is unusable; the session is left as it was then.
bool openCaptureFolder(Session& session, const QString& folder, const QString& batchFile = {},
                       const QString& tokenizerGiven = {}, const QString& templateGiven = {});
// "TRAINER with COLLATOR (framework versions)" when path is a batch file of a capture folder, else empty.
QString captureDescription(const QString& batchPath);

} // namespace maskscope
