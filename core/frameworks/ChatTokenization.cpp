// Text rows tokenized as the frameworks tokenize them, through maskscope's own Jinja engine and
// tokenizer: the assistant mask follows transformers' char_to_token rule over {% generation %}
// spans (ConversationEncoder.h), and is all zeros when the template has no such blocks.
#include "core/frameworks/ChatTokenization.h"
#include "core/collate/ConversationEncoder.h"

namespace maskscope {

namespace {

PositionKind kindOfRoleName(const std::string& role) {
  if (role == "system") return PositionKind::System;
  if (role == "user") return PositionKind::User;
  if (role == "assistant") return PositionKind::Assistant;
  if (role == "tool" || role == "ipython" || role == "function") return PositionKind::Tool;
  return PositionKind::Unknown;
}

} // namespace

TokenizedText applyChatTemplateTokens(const Tokenizer& tokenizer, const ChatTemplate& chatTemplate,
                                      const std::vector<Message>& messages, const RenderOptions& render,
                                      const ChatTemplateCall& call) {
  // Non-owning handles: the encoder only borrows them for this call.
  std::shared_ptr<const Tokenizer> tok(std::shared_ptr<void>(), &tokenizer);
  std::shared_ptr<const ChatTemplate> tpl(std::shared_ptr<void>(), &chatTemplate);
  ConversationEncoder encoder(tok, tpl);
  Conversation conv;
  conv.messages = messages;
  conv.tools = call.tools;
  conv.extraVariables = call.extra;
  EncoderOptions options;
  options.render = render;
  options.render.addGenerationPrompt = call.addGenerationPrompt;
  options.addTokenizerSpecialTokens = call.addSpecialTokens;
  const TokenizedConversation enc = encoder.encode(conv, options);

  TokenizedText out;
  out.text = enc.text;
  out.templateHasGeneration = enc.generationSpans.has_value();
  out.inputIds.reserve(enc.tokens.size());
  out.meta.reserve(enc.tokens.size());
  for (const TokenInfo& t : enc.tokens) {
    out.inputIds.push_back(t.id);
    PositionMeta m;
    m.kind = t.messageIndex < 0 ? PositionKind::Template
             : t.image          ? PositionKind::Image
             : t.think          ? PositionKind::Think
             : t.toolCall       ? PositionKind::ToolCall
                                : kindOfRoleName(t.role);
    m.messageIndex = t.messageIndex;
    m.turn = t.turn;
    m.special = t.special;
    m.scaffolding = t.scaffolding;
    m.toolName = t.toolName;
    m.reply = t.inGeneration; // the template's spans, or replies recovered from the roles (for display)
    out.meta.push_back(m);
  }
  // The closing token of each reply: the last special token of each run of reply positions.
  for (size_t i = 0; i < out.meta.size();) {
    size_t j = i, lastSpecial = SIZE_MAX;
    while (j < out.meta.size() && out.meta[j].reply) {
      if (out.meta[j].special) lastSpecial = j;
      ++j;
    }
    if (lastSpecial != SIZE_MAX) out.meta[lastSpecial].closesReply = true;
    i = j > i ? j : i + 1;
  }
  if (call.returnAssistantTokensMask) {
    // transformers: 1 inside {% generation %} spans; a template without them gives all zeros.
    out.assistantMasks.assign(enc.tokens.size(), 0);
    if (enc.generationSpans) {
      const std::vector<uint8_t> mask = assistantMaskFromSpans(enc.tokens, *enc.generationSpans, enc.text);
      for (size_t i = 0; i < mask.size(); ++i) out.assistantMasks[i] = mask[i];
    }
  }
  return out;
}

std::vector<int64_t> tokenizeText(const Tokenizer& tokenizer, const std::string& text, bool addSpecialTokens) {
  EncodeOptions eo;
  eo.addSpecialTokens = addSpecialTokens;
  eo.tokenStrings = false;
  const Encoding enc = tokenizer.encode(text, eo);
  return std::vector<int64_t>(enc.ids.begin(), enc.ids.end());
}

} // namespace maskscope
