// Which chat template an Axolotl spec renders through, as get_chat_template
// (src/axolotl/utils/chat_templates/base.py, v0.18.0) picks it: one of the templates Axolotl
// bundles (resources/frameworks/axolotl/), `tokenizer_default` (the tokenizer's own),
// `tokenizer_default_fallback_NAME` (the tokenizer's own, else NAME) or `jinja` (chat_template_jinja:
// the text, or a path to a file).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace maskscope::axolotl {

struct TemplateChoice {
  std::string text;   // the template source, exactly as Axolotl passes it to apply_chat_template
  std::string origin; // "axolotl:llama3", "tokenizer_default (path)", "jinja (file)", for messages
};

// tokenizerTemplate: the tokenizer's own template (--template or its tokenizer_config.json), or
// nullopt when it has none. Throws Error naming the choice (and the bundled names) when Axolotl
// would raise.
TemplateChoice chooseAxolotlTemplate(const std::string& choice, const std::optional<std::string>& jinja,
                                     const std::optional<std::string>& tokenizerTemplate,
                                     const std::string& tokenizerTemplateOrigin, const std::string& source);

// The bundled template names (without .jinja), sorted.
std::vector<std::string> axolotlTemplateNames();
// A bundled template's text without maskscope's header line; nullopt for an unknown name.
std::optional<std::string> axolotlBundledTemplate(const std::string& name);

} // namespace maskscope::axolotl
