// Resolves --template specs: a built-in name, a .jinja file, a tokenizer_config.json or a model
// folder (chat_template.jinja wins over tokenizer_config.json, as in recent transformers).
// Special tokens come from the tokenizer_config.json next to the template or the tokenizer.
#include "core/template/ChatTemplate.h"
#include "core/resources/BuiltinResources.h"
#include "core/template/JinjaChatTemplate.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <nlohmann/json.hpp>

namespace maskscope {

namespace {

constexpr int64_t kConfigCap = int64_t(64) << 20;

// Special tokens of each built-in family, used when no tokenizer_config.json supplies them.
std::map<std::string, std::string> familyDefaults(const std::string& name) {
  std::string base = name;
  const std::string suffix = "-assistant-mask";
  if (base.size() > suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0)
    base.resize(base.size() - suffix.size());
  if (base == "chatml")
    return {{"bos_token", "<s>"}, {"eos_token", "<|im_end|>"}, {"pad_token", "<pad>"}, {"unk_token", "<unk>"}};
  if (base == "llama3") return {{"bos_token", "<|begin_of_text|>"}, {"eos_token", "<|eot_id|>"}};
  if (base == "hermes3") return {{"bos_token", "<|begin_of_text|>"}, {"eos_token", "<|im_end|>"}}; // Hermes 3's config
  if (base == "gemma" || base == "gemma3-vision")
    return {{"bos_token", "<bos>"}, {"eos_token", "<eos>"}, {"pad_token", "<pad>"}, {"unk_token", "<unk>"}};
  if (base == "phi3")
    return {
        {"bos_token", "<s>"}, {"eos_token", "<|endoftext|>"}, {"pad_token", "<|endoftext|>"}, {"unk_token", "<unk>"}};
  if (base == "qwen2.5" || base == "qwen3" || base == "qwen2-vl")
    return {{"eos_token", "<|im_end|>"}, {"pad_token", "<|endoftext|>"}};
  // llama2, mistral, mistral-v0.3, zephyr, llava: SentencePiece Llama vocabulary
  return {{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"unk_token", "<unk>"}};
}

std::string tokenText(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object()) {
    auto c = v.find("content");
    if (c != v.end() && c->is_string()) return c->get<std::string>();
  }
  return {};
}

struct ConfigInfo {
  std::optional<std::string> chatTemplate;
  std::map<std::string, std::string> tokens;
};

ConfigInfo readTokenizerConfig(const std::string& path) {
  std::string text = readFileCapped(path, kConfigCap);
  nlohmann::json j = parseJsonOrThrow(text, {path});
  if (!j.is_object()) throw Error("tokenizer_config.json must hold a JSON object", SourceLocation{path});
  ConfigInfo info;
  for (const char* key : {"bos_token", "eos_token", "pad_token", "unk_token"}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    std::string t = tokenText(*it);
    if (!t.empty()) info.tokens[key] = t;
  }
  auto ct = j.find("chat_template");
  if (ct != j.end()) {
    if (ct->is_string()) {
      info.chatTemplate = ct->get<std::string>();
    } else if (ct->is_array()) {
      std::string names;
      for (const auto& e : *ct) {
        if (!e.is_object()) continue;
        std::string name = e.value("name", std::string());
        names += (names.empty() ? "" : ", ") + name;
        auto t = e.find("template");
        if (name == "default" && t != e.end() && t->is_string()) info.chatTemplate = t->get<std::string>();
      }
      if (!info.chatTemplate) {
        SourceLocation loc{path};
        loc.field = "chat_template";
        throw Error("chat_template lists named templates (" + names + ") but none is named 'default'", loc);
      }
    } else if (!ct->is_null()) {
      SourceLocation loc{path};
      loc.field = "chat_template";
      throw Error("chat_template must be a string or a list of {name, template}", loc);
    }
  }
  return info;
}

std::string parentDir(const std::string& path) {
  auto k = path.find_last_of('/');
  if (k == std::string::npos) return ".";
  if (k == 0) return "/";
  return path.substr(0, k);
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Special tokens from the tokenizer's folder, if it has a tokenizer_config.json.
std::map<std::string, std::string> tokensNear(const std::string& folder) {
  if (folder.empty()) return {};
  std::string cfg = joinPath(folder, "tokenizer_config.json");
  if (!fileExists(cfg)) return {};
  return readTokenizerConfig(cfg).tokens;
}

std::shared_ptr<ChatTemplate> fromFolder(const std::string& folder, const std::string& label) {
  std::string cfgPath = joinPath(folder, "tokenizer_config.json");
  std::string jinjaPath = joinPath(folder, "chat_template.jinja");
  ConfigInfo info;
  if (fileExists(cfgPath)) info = readTokenizerConfig(cfgPath);
  if (fileExists(jinjaPath))
    return std::make_shared<JinjaChatTemplate>(jinjaPath, readFileCapped(jinjaPath, kConfigCap), info.tokens);
  if (!fileExists(cfgPath))
    throw Error(
        "no chat template: the folder has neither chat_template.jinja nor tokenizer_config.json; pass --template",
        SourceLocation{label});
  if (!info.chatTemplate) {
    SourceLocation loc{cfgPath};
    loc.field = "chat_template";
    throw Error("tokenizer_config.json has no chat_template; pass --template (e.g. --template chatml)", loc);
  }
  return std::make_shared<JinjaChatTemplate>(cfgPath, *info.chatTemplate, info.tokens);
}

std::shared_ptr<ChatTemplate> builtin(const std::string& name, const std::string& tokenizerSpec) {
  auto text = builtinResource("templates/" + name + ".jinja");
  if (!text) return nullptr;
  auto defaults = familyDefaults(name);
  if (tokenizerSpec.rfind("builtin:demo", 0) == 0) {
    // the demo SentencePiece model's special tokens
    defaults["bos_token"] = "<s>";
    defaults["pad_token"] = "<pad>";
    defaults["unk_token"] = "<unk>";
    if (name.rfind("chatml", 0) == 0) defaults["eos_token"] = "<|im_end|>";
  }
  for (auto& [k, v] : tokensNear(specFolder(tokenizerSpec))) defaults[k] = v;
  return std::make_shared<JinjaChatTemplate>("builtin:" + name, std::string(*text), defaults);
}

} // namespace

std::shared_ptr<ChatTemplate> loadChatTemplate(const std::string& specIn, const std::string& tokenizerSpec) {
  std::string spec = specIn;
  if (spec.empty()) {
    if (tokenizerSpec.empty() || tokenizerSpec.rfind("builtin:", 0) == 0) return builtin("chatml", tokenizerSpec);
    return fromFolder(specFolder(tokenizerSpec), tokenizerSpec);
  }
  if (spec.rfind("builtin:", 0) == 0) spec = spec.substr(8);
  if (auto t = builtin(spec, tokenizerSpec)) return t;
  if (isDirectory(spec)) return fromFolder(spec, spec);
  if (!fileExists(spec)) {
    std::string names;
    for (const auto& n : builtinTemplateNames()) names += (names.empty() ? "" : ", ") + n;
    throw Error("no such template: not a built-in name (" + names + "), file or folder", SourceLocation{specIn});
  }
  if (endsWith(spec, ".json")) {
    ConfigInfo info = readTokenizerConfig(spec);
    if (!info.chatTemplate) {
      SourceLocation loc{spec};
      loc.field = "chat_template";
      throw Error("tokenizer_config.json has no chat_template", loc);
    }
    return std::make_shared<JinjaChatTemplate>(spec, *info.chatTemplate, info.tokens);
  }
  // A .jinja (or any text) file; special tokens from its folder or the tokenizer's.
  auto tokens = tokensNear(parentDir(spec));
  for (auto& [k, v] : tokensNear(specFolder(tokenizerSpec))) tokens[k] = v;
  return std::make_shared<JinjaChatTemplate>(spec, readFileCapped(spec, kConfigCap), tokens);
}

std::vector<std::string> builtinTemplateNames() {
  std::vector<std::string> names;
  for (const auto& n : builtinResourceNames("templates/")) {
    std::string s = n.substr(10);
    if (endsWith(s, ".jinja")) names.push_back(s.substr(0, s.size() - 6));
  }
  return names;
}

} // namespace maskscope
