// Conversation -> TokenizedConversation. Replies are located from {% generation %} spans when the
// template has them, otherwise from each assistant message's content span through the last
// special token of its block (the end-of-turn token that closes the reply).
#include "core/collate/ConversationEncoder.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

ConversationEncoder::ConversationEncoder(std::shared_ptr<const Tokenizer> tokenizer,
                                         std::shared_ptr<const ChatTemplate> chatTemplate)
    : tokenizer_(std::move(tokenizer)), template_(std::move(chatTemplate)) {
  if (!tokenizer_) throw Error("no tokenizer");
  if (!template_) throw Error("no chat template");
}

std::pair<int, int> tokensCoveringSpan(const std::vector<TokenInfo>& tokens, ByteSpan span) {
  if (span.empty()) return {-1, -1};
  auto holding = [&](int64_t byte) -> int {
    // First token whose span contains byte (tokens are in text order).
    auto it = std::lower_bound(tokens.begin(), tokens.end(), byte,
                               [](const TokenInfo& t, int64_t b) { return t.span.end <= b; });
    for (; it != tokens.end() && it->span.begin <= byte; ++it)
      if (it->span.contains(byte)) return int(it - tokens.begin());
    return -1;
  };
  int first = -1;
  for (int64_t b = span.begin; b < span.end && first < 0; ++b) first = holding(b);
  int last = -1;
  for (int64_t b = span.end - 1; b >= span.begin && last < 0; --b) last = holding(b);
  if (first < 0 || last < first) return {-1, -1};
  return {first, last + 1};
}

TokenizedConversation ConversationEncoder::encode(const Conversation& conv, const EncoderOptions& options) const {
  TokenizedConversation out;
  out.rowIndex = conv.rowIndex;
  RenderResult rendered;
  if (conv.plainText) {
    // Plain prompt/completion strings are concatenated as TRL does, no template involved.
    rendered.text = conv.plainPrompt + conv.plainCompletion;
    MessageSpan p{0, "user", 0, {0, int64_t(conv.plainPrompt.size())}, {0, int64_t(conv.plainPrompt.size())}};
    MessageSpan c{1, "assistant", 0, {p.block.end, int64_t(rendered.text.size())}, {p.block.end, int64_t(rendered.text.size())}};
    rendered.messages = {p, c};
  } else {
    RenderOptions ro = options.render;
    if (ro.tools.is_null() && !conv.tools.is_null()) ro.tools = conv.tools;
    if (ro.extra.is_null() && !conv.extraVariables.is_null()) ro.extra = conv.extraVariables;
    rendered = template_->render(conv.messages, ro);
  }
  out.text = std::move(rendered.text);
  out.messages = std::move(rendered.messages);
  out.generationSpans = std::move(rendered.generationSpans);

  EncodeOptions eo;
  eo.addSpecialTokens = options.addTokenizerSpecialTokens;
  Encoding enc = tokenizer_->encode(out.text, eo);
  out.tokens.resize(enc.size());
  for (size_t i = 0; i < enc.size(); ++i) {
    TokenInfo& t = out.tokens[i];
    t.id = enc.ids[i];
    t.text = tokenizer_->displayText(t.id);
    t.span = enc.offsets[i];
    t.special = enc.special[i] != 0;
    t.scaffolding = true;
  }
  // Assign messages: a token belongs to the message whose block holds its first byte.
  for (const MessageSpan& m : out.messages) {
    for (TokenInfo& t : out.tokens) {
      if (t.span.empty() || !m.block.contains(t.span.begin)) continue;
      t.messageIndex = m.messageIndex;
      t.role = m.role;
      t.turn = m.turn;
      t.scaffolding = t.special || !m.content.overlaps(t.span);
    }
  }
  // Reply positions.
  if (out.generationSpans) {
    for (const ByteSpan& g : *out.generationSpans) {
      auto [a, b] = tokensCoveringSpan(out.tokens, g);
      for (int i = a; i >= 0 && i < b; ++i) out.tokens[size_t(i)].inGeneration = true;
    }
  } else {
    for (const MessageSpan& m : out.messages) {
      if (m.role != "assistant") continue;
      // From the first content token through the last special token of the block.
      ByteSpan reply{m.content.empty() ? m.content.begin : m.content.begin, m.block.end};
      int first = -1, lastSpecial = -1, lastContent = -1;
      for (size_t i = 0; i < out.tokens.size(); ++i) {
        const TokenInfo& t = out.tokens[i];
        if (t.span.empty() || !reply.contains(t.span.begin)) continue;
        if (first < 0) first = int(i);
        if (t.special) lastSpecial = int(i);
        if (m.content.overlaps(t.span)) lastContent = int(i);
      }
      int last = std::max(lastSpecial, lastContent);
      for (int i = first; i >= 0 && i <= last; ++i) out.tokens[size_t(i)].inGeneration = true;
    }
  }
  if (conv.plainText) {
    for (size_t i = 0; i < out.tokens.size(); ++i)
      if (out.tokens[i].messageIndex == 1) { out.completionStart = int(i); break; }
  } else if (conv.promptMessageCount >= 0) {
    for (size_t i = 0; i < out.tokens.size(); ++i)
      if (out.tokens[i].messageIndex >= conv.promptMessageCount) { out.completionStart = int(i); break; }
  }
  return out;
}

} // namespace maskscope
