// Axolotl's template choice (see AxolotlTemplates.h), over the templates compiled into the binary.
#include "core/frameworks/axolotl/AxolotlTemplates.h"
#include "core/resources/BuiltinResources.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <algorithm>

namespace maskscope::axolotl {

namespace {

constexpr const char* kPrefix = "frameworks/axolotl/";
constexpr const char* kDefault = "tokenizer_default";
constexpr const char* kFallback = "tokenizer_default_fallback_";
constexpr int64_t kJinjaFileCap = int64_t(4) << 20;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

} // namespace

std::vector<std::string> axolotlTemplateNames() {
  std::vector<std::string> names;
  for (const auto& n : builtinResourceNames(kPrefix)) {
    std::string s = n.substr(std::string(kPrefix).size());
    if (s.ends_with(".jinja")) names.push_back(s.substr(0, s.size() - 6));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> axolotlBundledTemplate(const std::string& name) {
  auto text = builtinResource(std::string(kPrefix) + name + ".jinja");
  if (!text) return std::nullopt;
  std::string_view t = *text;
  if (t.starts_with("{#- maskscope:")) t.remove_prefix(t.find("#}") + 2); // the import script's header
  return std::string(t);
}

TemplateChoice chooseAxolotlTemplate(const std::string& choiceIn, const std::optional<std::string>& jinja,
                                     const std::optional<std::string>& tokenizerTemplate,
                                     const std::string& tokenizerTemplateOrigin, const std::string& source) {
  SourceLocation where{source, -1, -1, -1, "chat_template"};
  std::string choice = choiceIn;
  if (choice == "jinja") {
    if (!jinja || jinja->empty())
      throw Error("`jinja_template` cannot be None when `chat_template` choice is jinja", where);
    if (fileExists(*jinja) && !isDirectory(*jinja))
      return {readFileCapped(*jinja, kJinjaFileCap), "jinja (" + *jinja + ")"};
    return {*jinja, "jinja (chat_template_jinja text)"};
  }
  if (choice == kDefault) {
    if (!tokenizerTemplate)
      throw Error("`chat_template choice is tokenizer_default but tokenizer's chat_template is null. Please add a "
                  "chat_template in tokenizer config",
                  where);
    return {*tokenizerTemplate, "tokenizer_default (" + tokenizerTemplateOrigin + ")"};
  }
  if (choice.starts_with(kFallback)) {
    if (tokenizerTemplate) return {*tokenizerTemplate, "tokenizer_default (" + tokenizerTemplateOrigin + ")"};
    choice = choice.substr(std::string(kFallback).size());
  }
  if (auto text = axolotlBundledTemplate(choice)) return {*text, "axolotl:" + choice};
  throw Error("Template '" + choice + "' not found (Axolotl v0.18.0 bundles: " + joined(axolotlTemplateNames()) +
                  "; or tokenizer_default, tokenizer_default_fallback_NAME, jinja)",
              where);
}

} // namespace maskscope::axolotl
