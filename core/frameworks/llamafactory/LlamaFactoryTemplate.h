// LLaMA-Factory's own chat templates (src/llamafactory/data/template.py + formatter.py, v0.9.6.dev0 at
// ff6d4d1): each role's text as a list of slots, the template class (plain, Llama-2 style that fuses
// the system text into the first user turn, reasoning templates that add an empty <think> block), and
// the special-token fixes LLaMA-Factory applies to the tokenizer before encoding.
#pragma once
#include "core/tokenizer/Tokenizer.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope {
class ChatTemplate;
}

namespace maskscope::llamafactory {

// One element of a formatter's slot list: plain text (tokenized with add_special_tokens=False), the
// tokenizer's BOS or EOS ({"bos_token"} / {"eos_token"} sets in Python), or one named token
// ({"token": "<|user|>"} dicts).
struct Slot {
  enum class Kind { Text, Bos, Eos, Token };
  Kind kind = Kind::Text;
  std::string text;
};
using Slots = std::vector<Slot>;

// template_class in register_template.
enum class TemplateClass { Plain, Llama2, Reasoning };

struct Template {
  std::string name;
  Slots user, assistant, system, observation, prefix;
  // format_function's slots and the tool_format of its FunctionFormatter and of format_tools
  // (tool_utils.py's TOOLS key; "default" unless the template names one or the config sets tool_format).
  Slots function;
  std::string functionFormat = "default", toolsFormat = "default";
  std::string toolCallOpen = "<tool_call>", toolCallClose = "</tool_call>"; // tool_call_words
  // The "Today Date" Llama3ToolUtils writes (datetime.now(), "%d %b %Y"): maskscope's tool_date option.
  std::string toolDate;
  std::string defaultSystem;
  std::vector<std::string> stopWords;
  std::string thoughtOpen = "<think>\n", thoughtClose = "\n</think>\n\n"; // thought_words
  bool efficientEos = false;
  bool replaceEos = false;
  TemplateClass templateClass = TemplateClass::Plain;
  // The template's mm_plugin has an image token (gemma3, qwen2_vl): LLaMA-Factory's collator then
  // appends a fake image to every text-only batch (MultiModalDataCollatorForSeq2Seq).
  bool fakeImageInCollator = false;
  // The template's mm_plugin (mm_plugin.py PLUGINS name; "base" for text templates) and its tokens;
  // imageMaxPixels / imageMinPixels are model_args.image_max_pixels / image_min_pixels, which
  // patch_processor sets on the processor.
  std::string mmPlugin = "base";
  std::string imageToken, visionBos, visionEos;
  int64_t imageMaxPixels = 768 * 768, imageMinPixels = 32 * 32;
  bool panAndScan = false; // model_args.image_do_pan_and_scan (Gemma 3): refused when set
  // ReasoningTemplate: data_args.enable_thinking (true, false or None) and preserve_thinking.
  std::optional<bool> enableThinking = true;
  bool preserveThinking = false;
};

// The registered templates maskscope reproduces, by LLaMA-Factory's name; null when unknown.
const Template* builtinTemplate(std::string_view name);
std::vector<std::string> builtinTemplateNames();

// parse_template(tokenizer): the slots LLaMA-Factory derives from the tokenizer's own Jinja template
// when the config names no template (rendering probe conversations with "{{content}}" as content).
// Throws Error when the template cannot render the probes.
Template parseTemplate(const ChatTemplate& jinja, const Tokenizer& tokenizer);

// get_template_and_fix_tokenizer with data_args.tool_format set: format_function becomes
// FunctionFormatter(default_slots, tool_format) (the assistant's slots are not used) and format_tools
// ToolFormatter(tool_format). Throws Error for a format LLaMA-Factory or maskscope does not know.
void applyToolFormat(Template& t, const std::string& toolFormat);

// StringFormatter.apply: every "{{name}}" of a text slot replaced once by its value, in argument order.
Slots applySlots(const Slots& slots, const std::string& content, const std::string* idx = nullptr);

// The tokenizer as get_template_and_fix_tokenizer leaves it: EOS replaced by the first stop word
// (replace_eos), "<|endoftext|>" when there is none, pad = EOS when the tokenizer has no pad.
struct FixedTokens {
  std::optional<int32_t> bos, eos, pad;
  std::string eosText;
  std::vector<std::string> addedTokens; // stop words LLaMA-Factory adds to the vocabulary
  std::vector<std::string> warnings;    // as LLaMA-Factory logs them
};
// Throws Error when the EOS LLaMA-Factory sets is not in the vocabulary (every reply would then end in
// a token id maskscope cannot know); other stop words missing from it are added tokens (warnings).
FixedTokens fixSpecialTokens(const Template& t, const Tokenizer& tokenizer);

} // namespace maskscope::llamafactory
