// parse_template (template.py): when a LLaMA-Factory config names no template, the slots come from the
// tokenizer's own Jinja template, rendered on probe conversations whose content is "{{content}}".
#include "core/frameworks/llamafactory/LlamaFactoryTemplate.h"

#include "core/template/ChatTemplate.h"
#include "core/util/Error.h"
#include "core/util/Utf8.h"

namespace maskscope::llamafactory {

namespace {

std::string render(const ChatTemplate& jinja, std::vector<Message> messages, bool generationPrompt) {
  RenderOptions ro;
  ro.addGenerationPrompt = generationPrompt;
  ro.computeMessageSpans = false;
  return jinja.render(messages, ro).text;
}

Message msg(std::string role, std::string content) { return {std::move(role), std::move(content), nullptr}; }

// find_diff: the characters of long_str skipped while matching short_str against it in order (Python
// compares code points; so does this).
std::string findDiff(std::string_view shortStr, std::string_view longStr) {
  std::u32string a, b;
  for (size_t p = 0; p < shortStr.size();) a.push_back(utf8::decode(shortStr, p));
  for (size_t p = 0; p < longStr.size();) b.push_back(utf8::decode(longStr, p));
  std::string diff;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) {
      ++i;
      ++j;
    } else {
      utf8::append(diff, b[j]);
      ++j;
    }
  }
  return diff;
}

// Python's len(): code points.
size_t length(std::string_view s) {
  size_t n = 0;
  for (size_t p = 0; p < s.size(); ++n) utf8::decode(s, p);
  return n;
}

// Python's text[n:], n in code points.
std::string after(const std::string& text, size_t n) {
  size_t p = 0;
  for (size_t k = 0; k < n && p < text.size(); ++k) utf8::decode(text, p);
  return text.substr(p);
}

std::string replaceAll(std::string s, std::string_view what) {
  for (size_t p; (p = s.find(what)) != std::string::npos;) s.erase(p, what.size());
  return s;
}

} // namespace

Template parseTemplate(const ChatTemplate& jinja, const Tokenizer& tokenizer) {
  EncodeOptions withSpecials;
  withSpecials.addSpecialTokens = true;
  const std::string prefix = tokenizer.decode(tokenizer.encode("", withSpecials).ids);
  const std::string c = "{{content}}";

  const size_t skip = length(prefix);
  const std::string systemSlot = after(render(jinja, {msg("system", c)}, false), skip);
  const std::string userSlotEmptySystem = after(render(jinja, {msg("system", ""), msg("user", c)}, true), skip);
  std::string userSlot = after(render(jinja, {msg("user", c)}, true), skip);
  std::string assistantSlot =
      after(render(jinja, {msg("user", c), msg("assistant", c)}, false), skip + length(userSlot));
  const bool reasoning = assistantSlot.find("<think>") != std::string::npos;
  assistantSlot = replaceAll(replaceAll(assistantSlot, "<think>"), "</think>");
  const size_t firstNonNewline = assistantSlot.find_first_not_of('\n'); // lstrip("\n")
  assistantSlot.erase(0, firstNonNewline == std::string::npos ? assistantSlot.size() : firstNonNewline);

  std::string defaultSystem;
  if (length(userSlot) > length(userSlotEmptySystem)) {
    defaultSystem = findDiff(userSlotEmptySystem, userSlot);
    std::string soleSystem = systemSlot;
    if (size_t p = soleSystem.find(c); p != std::string::npos) soleSystem.replace(p, c.size(), defaultSystem);
    userSlot = after(userSlot, length(soleSystem));
  }

  Template t;
  t.name = "(parsed from " + jinja.name() + ")";
  t.user = {{Slot::Kind::Text, userSlot}};
  t.assistant = {{Slot::Kind::Text, assistantSlot}};
  t.system = {{Slot::Kind::Text, systemSlot}};
  t.observation = t.user;
  t.function = t.assistant; // FunctionFormatter(slots=[assistant_slot], tool_format="default")
  if (!prefix.empty()) t.prefix = {{Slot::Kind::Text, prefix}};
  t.defaultSystem = defaultSystem;
  t.templateClass = reasoning ? TemplateClass::Reasoning : TemplateClass::Plain;
  for (const Slots* s : {&t.user, &t.assistant, &t.system})
    if (s->front().text.find(c) == std::string::npos)
      throw Error("LLaMA-Factory cannot parse the chat template of " + jinja.name() +
                  " (a probe render lost the {{content}} placeholder: StringFormatter refuses it); name a template");
  return t;
}

} // namespace maskscope::llamafactory
