// loadHuggingFaceTokenizer: reads tokenizer.json (size-capped) and its sibling
// tokenizer_config.json, turning JSON syntax errors into Errors with line and column.
#include "core/tokenizer/hf/HfTokenizerLoader.h"

#include "core/tokenizer/hf/HfTokenizer.h"
#include "core/tokenizer/hf/TokenizerJsonReader.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <filesystem>

namespace maskscope {
namespace {

constexpr int64_t kTokenizerJsonCap = int64_t(256) << 20;
constexpr int64_t kConfigCap = int64_t(16) << 20;

} // namespace

std::shared_ptr<Tokenizer> loadHuggingFaceTokenizer(const std::string& path) {
  const std::string text = readFileCapped(path, kTokenizerJsonCap);
  hf::TokenizerJson parsed = hf::readTokenizerJson(text, path);
  std::string configPath = (std::filesystem::path(path).parent_path() / "tokenizer_config.json").string();
  hf::Json config;
  bool haveConfig = false;
  if (fileExists(configPath)) {
    config = hf::parseJsonText(readFileCapped(configPath, kConfigCap), configPath);
    haveConfig = true;
  }
  try {
    return std::make_shared<hf::HfTokenizer>(path, parsed.json, haveConfig ? &config : nullptr, configPath,
                                             &parsed.model);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) { // nlohmann type errors and the like: still name the file
    throw Error(std::string("cannot load tokenizer: ") + e.what(), SourceLocation{path});
  }
}

} // namespace maskscope
