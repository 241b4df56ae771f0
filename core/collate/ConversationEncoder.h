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

// The reasoning of each assistant message as rendered: "<think>" through "</think>" inside the
// message's block (from the content's start when the template printed "<think>" in the header or
// the generation prompt). Tokens starting inside it get TokenInfo::think. Collate and the role
// recovery of dumps (core/lint/RoleRecovery.h) both call it.
void markThinkSpans(TokenizedConversation& conv);

// True when a special token's text ends a turn: the template's eos_token, or a common end-of-turn
// token (<|im_end|>, <|eot_id|>, <|eom_id|>, <end_of_turn>, <|end|>, </s>, <|endoftext|>).
bool endsTurn(std::string_view tokenText, const std::string& eosText);

// The text the model sees for `messages`: the template's render with each image placeholder expanded
// as the model's processor expands it (core/media/MediaExpansion.h); the render itself for rows
// without image parts. Serving and prompt-prefix comparisons go through it, as the processor would.
RenderResult renderForModel(const ChatTemplate& tpl, const std::vector<Message>& messages, const RenderOptions& ro);

// Replies of a template without {% generation %}: each assistant message's content (from a think
// block the template writes before it, Qwen3's last turn) through its closing token, the same way
// in every turn (TokenInfo::inGeneration). The closing token is the first special token after the
// content that ends turns (endsTurn: a template may print the next header, or Llama-3's
// unconditional generation prompt, inside the last block); else the last special token of the block
// after the content. An empty (or unlocated) content leaves the closing token as the whole reply.
// Needs markThinkSpans (and markToolCallSpans: a call is part of the reply) first. The one reply rule of collate and of
// dumps (core/lint/RoleRecovery.h).
void markRecoveredReplies(TokenizedConversation& conv, const std::string& eosText);

// The assistant mask transformers builds from all generation spans (1 = inside a reply), with the
// same early stop: a span whose first character no token holds ends the marking.
std::vector<uint8_t> assistantMaskFromSpans(const std::vector<TokenInfo>& tokens, const std::vector<ByteSpan>& spans,
                                            std::string_view text = {});

} // namespace maskscope
