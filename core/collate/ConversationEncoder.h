// Renders a conversation through the chat template and tokenizes it, giving every position its
// message, role, turn and whether it is scaffolding, content, or part of a graded reply.
#pragma once
#include "core/data/Conversation.h"
#include "core/data/TokenizedConversation.h"
#include "core/template/ChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

#include <memory>
#include <string_view>

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

// Maps one {% generation %} byte span to tokens exactly as transformers' apply_chat_template(
// return_assistant_tokens_mask=True) does with char_to_token:
//   start = the first token (in order) holding the span's first character,
//   end   = the first token holding the span's last character,
//   tokens [start, end] inclusive.
// Returns [start, end + 1). {-1, -1} when no token holds the first character (transformers then
// stops marking this and every later span: "start_token is None -> break"). When no token holds the
// last character, or it is token 0 (transformers tests `if end_token`, so index 0 counts as None),
// the range runs to the end of the tokens, as transformers does.
// text (the rendered text) widens byte positions to whole UTF-8 characters, as transformers counts
// characters; without it each byte is its own character.
std::pair<int, int> tokensCoveringSpan(const std::vector<TokenInfo>& tokens, ByteSpan span, std::string_view text = {});

// Appends enc's tokens to out.tokens, their byte spans shifted by offset into out.text; each starts
// as scaffolding of no message (assignTokensToMessages then places it).
void appendEncodedTokens(const Tokenizer& tokenizer, const Encoding& enc, int64_t offset, TokenizedConversation& out);

// A token belongs to the message whose block holds its first byte; inside the block it is
// scaffolding unless it overlaps the message's content (special tokens always are).
void assignTokensToMessages(TokenizedConversation& conv);

// The assistant mask transformers builds from all generation spans (1 = inside a reply), with the
// same early stop: a span whose first character no token holds ends the marking.
std::vector<uint8_t> assistantMaskFromSpans(const std::vector<TokenInfo>& tokens, const std::vector<ByteSpan>& spans,
                                            std::string_view text = {});

} // namespace maskscope
