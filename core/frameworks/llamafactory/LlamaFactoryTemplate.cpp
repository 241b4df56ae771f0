// LLaMA-Factory's registered templates as data (copied slot by slot from template.py at ff6d4d1), the
// defaults register_template fills in, and fix_special_tokens.
#include "core/frameworks/llamafactory/LlamaFactoryTemplate.h"
#include "core/frameworks/llamafactory/LlamaFactoryTools.h"

#include "core/util/Error.h"

#include <map>

namespace maskscope::llamafactory {

namespace {

Slot text(std::string s) { return {Slot::Kind::Text, std::move(s)}; }
Slot bos() { return {Slot::Kind::Bos, {}}; }
Slot eos() { return {Slot::Kind::Eos, {}}; }

// register_template's arguments; empty slot lists take the defaults it fills in.
struct Registration {
  std::string name;
  Slots user, assistant, system, observation, prefix;
  Slots function;         // format_function's slots when the template names them
  std::string toolFormat; // the tool_format of its format_function and format_tools; empty: "default"
  std::string defaultSystem;
  std::vector<std::string> stopWords;
  bool efficientEos = false, replaceEos = false;
  TemplateClass cls = TemplateClass::Plain;
  bool fakeImage = false;
  std::string mmPlugin = "base", imageToken;
  std::pair<std::string, std::string> thought = {"<think>\n", "\n</think>\n\n"};
};

Template registered(Registration r) {
  Template t;
  t.name = r.name;
  // default_slots: the assistant's content then EOS, or the content alone under efficient_eos (the
  // EOS then opens the next prompt, see SupervisedDatasetProcessor).
  const Slots defaultAssistant = r.efficientEos ? Slots{text("{{content}}")} : Slots{text("{{content}}"), eos()};
  const Slots defaultUser = {text("{{content}}")};
  t.user = r.user.empty() ? defaultUser : r.user;
  t.assistant = r.assistant.empty() ? defaultAssistant : r.assistant;
  t.system = r.system.empty() ? defaultUser : r.system;
  t.observation = !r.observation.empty() ? r.observation : t.user; // format_observation or format_user
  // default_function_formatter: FunctionFormatter(format_assistant.slots or default_slots, "default").
  t.function = !r.function.empty() ? r.function : !r.assistant.empty() ? r.assistant : defaultAssistant;
  if (!r.toolFormat.empty()) t.functionFormat = t.toolsFormat = r.toolFormat;
  t.prefix = r.prefix;
  t.defaultSystem = r.defaultSystem;
  t.stopWords = r.stopWords;
  t.efficientEos = r.efficientEos;
  t.replaceEos = r.replaceEos;
  t.templateClass = r.cls;
  t.fakeImageInCollator = r.fakeImage;
  t.mmPlugin = r.mmPlugin;
  t.imageToken = r.imageToken;
  if (t.mmPlugin == "qwen2_vl") { // Qwen2VLPlugin's class defaults
    t.visionBos = "<|vision_start|>";
    t.visionEos = "<|vision_end|>";
  }
  if (t.mmPlugin == "gemma3") { // the Gemma 3 processor's boi_token and eoi_token
    t.visionBos = "<start_of_image>";
    t.visionEos = "<end_of_image>";
  }
  t.thoughtOpen = r.thought.first;
  t.thoughtClose = r.thought.second;
  return t;
}

const std::string kImStartUser = "<|im_start|>user\n{{content}}<|im_end|>\n<|im_start|>assistant\n";
const std::string kImAssistant = "{{content}}<|im_end|>\n";
const std::string kImSystem = "<|im_start|>system\n{{content}}<|im_end|>\n";
const std::string kQwenObservation =
    "<|im_start|>user\n<tool_response>\n{{content}}\n</tool_response><|im_end|>\n<|im_start|>assistant\n";
const std::string kGemmaUser = "<start_of_turn>user\n{{content}}<end_of_turn>\n<start_of_turn>model\n";
const std::string kGemmaObservation = "<start_of_turn>tool\n{{content}}<end_of_turn>\n<start_of_turn>model\n";

Registration qwenFamily(std::string name, TemplateClass cls, std::string defaultSystem = {}) {
  return {.name = std::move(name),
          .user = {text(kImStartUser)},
          .assistant = {text(kImAssistant)},
          .system = {text(kImSystem)},
          .observation = {text(kQwenObservation)},
          .function = {text(kImAssistant)},
          .toolFormat = "qwen",
          .defaultSystem = std::move(defaultSystem),
          .stopWords = {"<|im_end|>"},
          .replaceEos = true,
          .cls = cls};
}

Registration gemmaFamily(std::string name, std::vector<std::string> stops, bool efficientEos, bool replaceEos,
                         bool fakeImage) {
  return {.name = std::move(name),
          .user = {text(kGemmaUser)},
          .assistant = {text("{{content}}<end_of_turn>\n")},
          .system = {text("{{content}}\n\n")},
          .observation = {text(kGemmaObservation)},
          .prefix = {bos()},
          .stopWords = std::move(stops),
          .efficientEos = efficientEos,
          .replaceEos = replaceEos,
          .cls = TemplateClass::Llama2,
          .fakeImage = fakeImage,
          .mmPlugin = fakeImage ? "gemma3" : "base",
          .imageToken = fakeImage ? "<image_soft_token>" : ""};
}

std::map<std::string, Template, std::less<>> buildTemplates() {
  std::vector<Registration> regs;
  regs.push_back({.name = "alpaca",
                  .user = {text("### Instruction:\n{{content}}\n\n### Response:\n")},
                  .assistant = {text("{{content}}"), eos(), text("\n\n")},
                  .defaultSystem = "Below is an instruction that describes a task. Write a response that "
                                   "appropriately completes the request.\n\n"});
  regs.push_back({.name = "chatml",
                  .user = {text(kImStartUser)},
                  .assistant = {text(kImAssistant)},
                  .system = {text(kImSystem)},
                  .observation = {text("<|im_start|>tool\n{{content}}<|im_end|>\n<|im_start|>assistant\n")},
                  .stopWords = {"<|im_end|>", "<|im_start|>"},
                  .replaceEos = true});
  regs.push_back({.name = "default",
                  .user = {text("Human: {{content}}"), eos(), text("\nAssistant:")},
                  .assistant = {text("{{content}}"), eos(), text("\n")},
                  .system = {text("System: {{content}}"), eos(), text("\n")}});
  regs.push_back({.name = "empty", .assistant = {text("{{content}}")}});
  regs.push_back(gemmaFamily("gemma", {"<end_of_turn>"}, false, true, false));
  regs.push_back(gemmaFamily("gemma2", {"<eos>", "<end_of_turn>"}, true, false, false));
  regs.push_back(gemmaFamily("gemma3", {"<end_of_turn>"}, false, true, true));
  regs.push_back({.name = "llama2",
                  .user = {bos(), text("[INST] {{content}} [/INST]")},
                  .system = {text("<<SYS>>\n{{content}}\n<</SYS>>\n\n")},
                  .cls = TemplateClass::Llama2});
  regs.push_back({.name = "llama3",
                  .user = {text("<|start_header_id|>user<|end_header_id|>\n\n{{content}}<|eot_id|>"
                                "<|start_header_id|>assistant<|end_header_id|>\n\n")},
                  .assistant = {text("{{content}}<|eot_id|>")},
                  .system = {text("<|start_header_id|>system<|end_header_id|>\n\n{{content}}<|eot_id|>")},
                  .observation = {text("<|start_header_id|>ipython<|end_header_id|>\n\n{{content}}<|eot_id|>"
                                       "<|start_header_id|>assistant<|end_header_id|>\n\n")},
                  .prefix = {bos()},
                  .function = {text("{{content}}<|eot_id|>")},
                  .toolFormat = "llama3",
                  .stopWords = {"<|eot_id|>", "<|eom_id|>"},
                  .replaceEos = true});
  regs.push_back({.name = "mistral",
                  .user = {text("[INST] {{content}}[/INST]")},
                  .assistant = {text(" {{content}}"), eos()},
                  .system = {text("{{content}}\n\n")},
                  .observation = {text("[TOOL_RESULTS] {\"content\": {{content}}}[/TOOL_RESULTS]")},
                  .prefix = {bos()},
                  .function = {text("[TOOL_CALLS] {{content}}"), eos()},
                  .toolFormat = "mistral",
                  .cls = TemplateClass::Llama2});
  regs.push_back(
      qwenFamily("qwen", TemplateClass::Plain, "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."));
  regs.push_back(qwenFamily("qwen3", TemplateClass::Reasoning));
  Registration qwen2vl = qwenFamily("qwen2_vl", TemplateClass::Plain, "You are a helpful assistant.");
  qwen2vl.mmPlugin = "qwen2_vl"; // get_mm_plugin(name="qwen2_vl", image_token="<|image_pad|>", ...)
  qwen2vl.imageToken = "<|image_pad|>";
  qwen2vl.fakeImage = true; // the plugin has an image token
  regs.push_back(std::move(qwen2vl));
  regs.push_back(qwenFamily("qwen3_nothink", TemplateClass::Plain));
  std::map<std::string, Template, std::less<>> out;
  for (Registration& r : regs) {
    std::string name = r.name; // registered() takes r by value: read the key first
    out.emplace(std::move(name), registered(std::move(r)));
  }
  return out;
}

const std::map<std::string, Template, std::less<>>& templates() {
  static const auto all = buildTemplates();
  return all;
}

// The id of a token LLaMA-Factory adds as a special token; it must already be in the vocabulary (an
// added token would need resize_vocab and a new id maskscope cannot know the model has).
int32_t existingToken(const Tokenizer& tok, const std::string& token, const std::string& why) {
  if (auto id = tok.tokenToId(token)) return *id;
  throw Error("LLaMA-Factory would add " + token + " to the tokenizer (" + why +
              "), which changes the vocabulary (resize_vocab); this tokenizer has no such token");
}

} // namespace

const Template* builtinTemplate(std::string_view name) {
  auto it = templates().find(name);
  return it == templates().end() ? nullptr : &it->second;
}

std::vector<std::string> builtinTemplateNames() {
  std::vector<std::string> names;
  for (const auto& [name, t] : templates()) names.push_back(name);
  return names;
}

void applyToolFormat(Template& t, const std::string& toolFormat) {
  requireToolFormat(toolFormat);
  t.function = t.efficientEos ? Slots{text("{{content}}")} : Slots{text("{{content}}"), eos()}; // default_slots
  t.functionFormat = t.toolsFormat = toolFormat;
}

Slots applySlots(const Slots& slots, const std::string& content, const std::string* idx) {
  Slots out = slots;
  for (Slot& s : out) {
    if (s.kind != Slot::Kind::Text) continue;
    // str.replace("{{content}}", value, 1) then "{{idx}}": the second sees the first's result.
    if (size_t p = s.text.find("{{content}}"); p != std::string::npos) s.text.replace(p, 11, content);
    if (idx)
      if (size_t p = s.text.find("{{idx}}"); p != std::string::npos) s.text.replace(p, 7, *idx);
  }
  return out;
}

FixedTokens fixSpecialTokens(const Template& t, const Tokenizer& tokenizer) {
  const SpecialTokenIds sp = tokenizer.specialTokens();
  FixedTokens f;
  f.bos = sp.bos;
  f.eos = sp.eos;
  f.eosText = sp.eosText;
  f.pad = sp.pad;
  if (t.replaceEos) {
    if (t.stopWords.empty()) throw Error("template " + t.name + ": stop words are required to replace the EOS token");
    f.eos = existingToken(tokenizer, t.stopWords.front(), "the EOS of template " + t.name);
    f.eosText = t.stopWords.front();
  }
  if (!f.eos) {
    f.eos = existingToken(tokenizer, "<|endoftext|>", "the tokenizer has no EOS");
    f.eosText = "<|endoftext|>";
  }
  if (!f.pad) f.pad = f.eos; // tokenizer.pad_token = tokenizer.eos_token (after the replacement)
  // The other stop words become additional special tokens. One the vocabulary lacks is added with a
  // new id (LLaMA-Factory warns "New tokens have been added, make sure `resize_vocab` is True."); it only
  // changes the ids of text that spells it, which the encoder refuses (see Encoder::toIds).
  for (size_t i = t.replaceEos ? 1 : 0; i < t.stopWords.size(); ++i) {
    if (tokenizer.tokenToId(t.stopWords[i])) continue;
    f.addedTokens.push_back(t.stopWords[i]);
    f.warnings.push_back("Add " + t.stopWords[i] +
                         " to stop words: it is not in the vocabulary, so LLaMA-Factory adds "
                         "it as a new token (New tokens have been added, make sure `resize_vocab` is True.)");
  }
  return f;
}

} // namespace maskscope::llamafactory
