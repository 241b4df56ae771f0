// Renders a conversation through the chat template and tokenizes it, giving every position its
// message, role, turn and whether it is scaffolding, content, or part of a graded reply.
#pragma once
#include "core/data/Conversation.h"
#include "core/data/TokenizedConversation.h"
#include "core/template/ChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

#include <memory>

namespace maskscope {

struct EncoderOptions {
  RenderOptions render;
  bool addTokenizerSpecialTokens = false; // tokenizer BOS on top of the template's (duplicate-BOS trap)
};

class ConversationEncoder {
public:
  ConversationEncoder(std::shared_ptr<const Tokenizer> tokenizer, std::shared_ptr<const ChatTemplate> chatTemplate);

  TokenizedConversation encode(const Conversation& conversation, const EncoderOptions& options = {}) const;

  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const ChatTemplate& chatTemplate() const { return *template_; }
  std::shared_ptr<const Tokenizer> tokenizerPtr() const { return tokenizer_; }
  std::shared_ptr<const ChatTemplate> templatePtr() const { return template_; }

private:
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::shared_ptr<const ChatTemplate> template_;
};

// Maps byte spans to the tokens that cover them as transformers maps {% generation %} character
// spans: from the token holding the first byte to the token holding the last byte, inclusive.
// Returns [firstToken, lastToken + 1), or {-1, -1} when no token covers the span.
std::pair<int, int> tokensCoveringSpan(const std::vector<TokenInfo>& tokens, ByteSpan span);

} // namespace maskscope
