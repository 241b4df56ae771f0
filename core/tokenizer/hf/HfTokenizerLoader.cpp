// loadHuggingFaceTokenizer: reads tokenizer.json (size-capped) and its sibling
// tokenizer_config.json, turning JSON syntax errors into Errors with line and column.
#include "core/tokenizer/hf/HfTokenizerLoader.h"

#include "core/tokenizer/hf/HfTokenizer.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <filesystem>

namespace maskscope {
namespace {

constexpr int64_t kTokenizerJsonCap = int64_t(256) << 20;
constexpr int64_t kConfigCap = int64_t(16) << 20;

hf::Json parseJson(const std::string& text, const std::string& path) {
  try {
    return hf::Json::parse(text);
  } catch (const hf::Json::parse_error& e) {
    SourceLocation where;
    where.file = path;
    size_t byte = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    where.byteOffset = long(byte);
    where.line = 1;
    size_t lineStart = 0;
    for (size_t i = 0; i < byte; ++i)
      if (text[i] == '\n') { ++where.line; lineStart = i + 1; }
    where.column = long(byte - lineStart + 1);
    std::string what = e.what();
    if (auto p = what.find("parse error"); p != std::string::npos) what = what.substr(p);
    throw Error("invalid JSON: " + what, where);
  }
}

} // namespace

std::shared_ptr<Tokenizer> loadHuggingFaceTokenizer(const std::string& path) {
  const std::string text = readFileCapped(path, kTokenizerJsonCap);
  hf::Json json = parseJson(text, path);
  std::string configPath = (std::filesystem::path(path).parent_path() / "tokenizer_config.json").string();
  hf::Json config;
  bool haveConfig = false;
  if (fileExists(configPath)) {
    config = parseJson(readFileCapped(configPath, kConfigCap), configPath);
    haveConfig = true;
  }
  try {
    return std::make_shared<hf::HfTokenizer>(path, json, haveConfig ? &config : nullptr, configPath);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) { // nlohmann type errors and the like: still name the file
    throw Error(std::string("cannot load tokenizer: ") + e.what(), SourceLocation{path});
  }
}

} // namespace maskscope
