// Resolves --tokenizer specs: builtin:demo, tokenizer.model, tokenizer.json, or a model folder
// (tokenizer.json preferred, as transformers' AutoTokenizer picks the fast tokenizer).
#include "core/tokenizer/Tokenizer.h"
#include "core/resources/BuiltinResources.h"
#include "core/tokenizer/SentencePieceTokenizer.h"
#include "core/tokenizer/hf/HfTokenizerLoader.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <filesystem>

namespace maskscope {

namespace {

constexpr int64_t kModelFileCap = int64_t(64) << 20; // tokenizer.model files are a few MB

std::shared_ptr<Tokenizer> loadSentencePieceFile(const std::string& path) {
  std::string bytes = readFileCapped(path, kModelFileCap);
  std::string config;
  std::string cfgPath = joinPath(std::filesystem::path(path).parent_path().string(), "tokenizer_config.json");
  if (fileExists(cfgPath)) config = readFileCapped(cfgPath, int64_t(16) << 20);
  return std::make_shared<SentencePieceTokenizer>(bytes, path, config);
}

} // namespace

std::shared_ptr<Tokenizer> loadTokenizer(const std::string& spec) {
  if (spec == "builtin:demo" || spec.empty()) {
    auto bytes = builtinResource("demo/tokenizer.model");
    if (!bytes) throw Error("the demo tokenizer is missing from this build", {"builtin:demo"});
    return std::make_shared<SentencePieceTokenizer>(*bytes, "builtin:demo");
  }
  if (spec.starts_with("builtin:")) throw Error("unknown built-in tokenizer (known: builtin:demo)", {spec});
  if (isDirectory(spec)) {
    std::string json = joinPath(spec, "tokenizer.json");
    if (fileExists(json)) return loadHuggingFaceTokenizer(json);
    std::string model = joinPath(spec, "tokenizer.model");
    if (fileExists(model)) return loadSentencePieceFile(model);
    throw Error("folder holds neither tokenizer.json nor tokenizer.model", {spec});
  }
  if (!fileExists(spec)) throw Error("no such tokenizer file or folder", {spec});
  if (spec.ends_with(".json")) return loadHuggingFaceTokenizer(spec);
  return loadSentencePieceFile(spec);
}

} // namespace maskscope
