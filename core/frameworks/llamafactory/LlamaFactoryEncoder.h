// Template._encode and encode_multiturn of LLaMA-Factory (template.py at ff6d4d1): each message's slots
// tokenized piece by piece (add_special_tokens=False), turned into (prompt ids, response ids) pairs;
// reasoning templates (qwen3) remove or add <think> blocks per enable_thinking / preserve_thinking.
#pragma once
#include "core/frameworks/llamafactory/LlamaFactoryTemplate.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace maskscope::llamafactory {

// A message after LLaMA-Factory's dataset converter: role is user, assistant, observation or function.
struct LfMessage {
  std::string role;
  std::string content;
};

using Ids = std::vector<int32_t>;

// One message's ids and how many of them lead in before the message itself: the prefix and the
// system text on the first message (the Llama-2 class fuses the system text into the user content,
// so there it counts as the user's).
struct EncodedMessage {
  Ids ids;
  size_t leadIn = 0;
  std::vector<std::string> calls; // a function message: the functions it calls (FunctionFormatter's parse)
};

class Encoder {
public:
  // Applies fix_special_tokens to its own copy of the special ids; throws Error like it.
  Encoder(const Template& t, const Tokenizer& tokenizer, bool splitSpecialTokens = false);

  // Template._encode (Llama2Template._encode for the Llama-2 class): one id list per message; the
  // first carries the prefix and the system text (system or the template's default_system, then the
  // tools as format_tools writes them); function messages go through format_function.
  std::vector<EncodedMessage> encodeMessages(const std::vector<LfMessage>& messages, const std::string& system,
                                             const std::string& tools = {}) const;
  // encode_multiturn: (prompt, response) per turn; ReasoningTemplate's thought handling included. The
  // prompt's leadIn counts the prefix/system ids of the first turn.
  std::vector<std::pair<EncodedMessage, EncodedMessage>> encodeMultiturn(std::vector<LfMessage> messages,
                                                                         const std::string& system,
                                                                         const std::string& tools,
                                                                         bool discardingHistoryCot) const;

  const Template& tmpl() const { return t_; }
  const FixedTokens& tokens() const { return fixed_; }
  const Tokenizer& tokenizer() const { return tok_; }

  // ReasoningTemplate.remove_thought: every thought block removed, then leading newlines.
  std::string removeThought(const std::string& content) const;

private:
  Ids encodeText(const std::string& text) const;
  Ids toIds(const Slots& elements) const;
  bool hasThought(const std::string& content) const;

  Template t_;
  const Tokenizer& tok_;
  FixedTokens fixed_;
  bool splitSpecialTokens_ = false; // model_args.split_special_tokens
};

} // namespace maskscope::llamafactory
