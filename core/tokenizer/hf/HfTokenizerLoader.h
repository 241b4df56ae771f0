// Entry point of the Hugging Face tokenizer.json implementation (see core/tokenizer/hf/).
#pragma once
#include "core/tokenizer/Tokenizer.h"

#include <memory>
#include <string>

namespace maskscope {

// Loads a tokenizer.json (and its sibling tokenizer_config.json when present). Throws Error.
std::shared_ptr<Tokenizer> loadHuggingFaceTokenizer(const std::string& tokenizerJsonPath);

} // namespace maskscope
