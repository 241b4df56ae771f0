// The frameworks' tokenization of text rows, through maskscope's own chat template engine and
// tokenizer: transformers' apply_chat_template(messages, tokenize=True, return_dict=True,
// return_assistant_tokens_mask=...) and tokenizer(text) (add_special_tokens=True, as a plain call
// does). Every token keeps its role (PositionMeta) so lint and the app can show it.
#pragma once
#include "core/data/Batch.h"
#include "core/data/Conversation.h"
#include "core/template/ChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

#include <cstdint>
#include <vector>

namespace maskscope {

struct TokenizedText {
  std::vector<int64_t> inputIds;
  std::vector<int64_t> assistantMasks; // 1 inside a {% generation %} span (transformers' rule); empty when not asked
  std::vector<PositionMeta> meta;      // per token
  std::string text;                    // the rendered text the tokens cover (image placeholders expanded)
  bool templateHasGeneration = false;
};

struct ChatTemplateCall {
  bool addGenerationPrompt = false;
  bool returnAssistantTokensMask = false;
  bool addSpecialTokens = false; // the tokenizer's BOS/EOS too (a processor's call when the text lacks BOS)
  OrderedJson tools;             // null when none
  OrderedJson extra;             // more template variables (chat_template_kwargs), or null
};

// apply_chat_template(messages, tokenize=True): render, then tokenize the text without adding
// special tokens (the template writes them). Error (the template's message) on raise_exception.
TokenizedText applyChatTemplateTokens(const Tokenizer& tokenizer, const ChatTemplate& chatTemplate,
                                      const std::vector<Message>& messages, const RenderOptions& render,
                                      const ChatTemplateCall& call);
// tokenizer(text)["input_ids"]: add_special_tokens=True (BOS/EOS as the post-processor adds them).
std::vector<int64_t> tokenizeText(const Tokenizer& tokenizer, const std::string& text, bool addSpecialTokens = true);

} // namespace maskscope
