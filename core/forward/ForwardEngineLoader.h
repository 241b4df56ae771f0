// Finds and loads the LibTorch module (libmaskscope_torch.so) on first use, with RTLD_DEEPBIND so its
// protobuf/torch symbols never mix with the sentencepiece in the main binary.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <memory>
#include <string>
#include <vector>

namespace maskscope {

// The module's file name on this platform.
inline constexpr const char* kForwardEngineFileName = "libmaskscope_torch.so";

// Where the loader looks, in order: $MASKSCOPE_ENGINE_PATH (a file or a folder), the running
// executable's folder, ../lib/maskscope/ next to it (install layout), the build tree.
std::vector<std::string> forwardEngineSearchPaths();

// The engine, loaded once and kept for the life of the process (never unloaded: objects it made
// must outlive any caller). nullptr with *errorMessage set when it cannot be found or loaded.
std::shared_ptr<ForwardEngine> loadForwardEngine(std::string* errorMessage);

// As above but throws maskscope::Error with the message.
std::shared_ptr<ForwardEngine> requireForwardEngine();

} // namespace maskscope
