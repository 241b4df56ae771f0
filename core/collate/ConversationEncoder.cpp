// Conversation -> TokenizedConversation. Replies are located from {% generation %} spans when the
// template has them (mapped to tokens as transformers does), otherwise recovered from the roles:
// each assistant message's content through its end-of-turn token (markRecoveredReplies).
// Prompt/completion rows get completionStart as TRL computes it: the token count of the prompt
// rendered (with the generation prompt) and tokenized on its own.
#include "core/collate/ConversationEncoder.h"
#include "core/collate/ToolCallSpans.h"
#include "core/media/MediaExpansion.h"
#include "core/util/Error.h"
#include "core/util/Utf8.h"

#include <algorithm>

namespace maskscope {

ConversationEncoder::ConversationEncoder(std::shared_ptr<const Tokenizer> tokenizer,
                                         std::shared_ptr<const ChatTemplate> chatTemplate)
    : tokenizer_(std::move(tokenizer)), template_(std::move(chatTemplate)) {
  if (!tokenizer_) throw Error("no tokenizer");
  if (!template_) throw Error("no chat template");
}

namespace {

// The character holding byte b: [begin, end) widened to UTF-8 boundaries when the text is known.
ByteSpan characterAt(std::string_view text, int64_t b) {
  if (text.empty() || b < 0 || b >= int64_t(text.size())) return {b, b + 1};
  int64_t begin = b;
  for (int back = 0; back < 3 && begin > 0 && (static_cast<unsigned char>(text[size_t(begin)]) & 0xC0) == 0x80; ++back)
    --begin;
  int64_t end = begin + utf8::sequenceLength(static_cast<unsigned char>(text[size_t(begin)]));
  if (end <= b) return {b, b + 1}; // stray continuation byte: a character of its own
  return {begin, std::min<int64_t>(end, int64_t(text.size()))};
}

// tokenizers' Encoding::char_to_token: the first token, in order, whose offsets hold the character.
int charToToken(const std::vector<TokenInfo>& tokens, ByteSpan ch) {
  for (size_t i = 0; i < tokens.size(); ++i)
    if (!tokens[i].span.empty() && tokens[i].span.overlaps(ch)) return int(i);
  return -1;
}

bool isAssistantRole(const std::string& role) { return role == "assistant" || role == "model" || role == "gpt"; }

} // namespace

void markThinkSpans(TokenizedConversation& out) {
  static constexpr std::string_view kOpen = "<think>", kClose = "</think>";
  for (const MessageSpan& m : out.messages) {
    if (!isAssistantRole(m.role) || m.block.empty() || m.block.end > int64_t(out.text.size())) continue;
    const std::string_view block(out.text.data() + m.block.begin, size_t(m.block.size()));
    const size_t close = block.find(kClose);
    if (close == std::string_view::npos) continue;
    const size_t open = block.rfind(kOpen, close);
    int64_t begin = m.block.begin + int64_t(open);
    if (open == std::string_view::npos) {
      if (m.content.empty() || m.content.begin > m.block.begin + int64_t(close)) continue;
      begin = m.content.begin;
    }
    const ByteSpan think{begin, m.block.begin + int64_t(close + kClose.size())};
    for (TokenInfo& t : out.tokens)
      if (!t.span.empty() && think.contains(t.span.begin)) t.think = true;
  }
}

bool endsTurn(std::string_view tokenText, const std::string& eosText) {
  static const std::vector<std::string_view> kTurnEnds = {"<|im_end|>", "<|eot_id|>", "<|eom_id|>",   "<end_of_turn>",
                                                          "<|end|>",    "</s>",       "<|endoftext|>"};
  return (!eosText.empty() && tokenText == eosText) ||
         std::find(kTurnEnds.begin(), kTurnEnds.end(), tokenText) != kTurnEnds.end();
}

void markRecoveredReplies(TokenizedConversation& out, const std::string& eosText) {
  auto turnEnd = [&](const TokenInfo& t) {
    return endsTurn(std::string_view(out.text).substr(size_t(t.span.begin), size_t(t.span.size())), eosText);
  };
  for (const MessageSpan& m : out.messages) {
    if (!isAssistantRole(m.role)) continue;
    const bool haveContent = !m.content.empty() && m.content.begin >= m.block.begin && m.content.end <= m.block.end;
    int first = -1, last = -1;
    if (haveContent) {
      first = charToToken(out.tokens, characterAt(out.text, m.content.begin));
      last = charToToken(out.tokens, characterAt(out.text, m.content.end - 1));
      if (first < 0 || last < first) first = last = -1;
    }
    const int64_t after = haveContent ? m.content.end : m.block.begin;
    int closing = -1, lastSpecial = -1;
    for (size_t i = 0; i < out.tokens.size(); ++i) {
      const TokenInfo& t = out.tokens[i];
      if (!t.special || t.span.begin < after || !m.block.contains(t.span.begin)) continue;
      if (closing < 0 && turnEnd(t)) closing = int(i);
      lastSpecial = int(i);
    }
    if (closing < 0) closing = lastSpecial;
    if (first < 0) first = closing;
    // a reasoning block or a tool call before the content (or instead of it) is part of the reply
    for (size_t i = 0; i < out.tokens.size(); ++i)
      if ((out.tokens[i].think || out.tokens[i].toolCall) && out.tokens[i].messageIndex == m.messageIndex) {
        if (first < 0 || int(i) < first) first = int(i);
        break;
      }
    last = std::max(last, closing);
    // the calls themselves, also where no closing token follows them in the tokenizer's vocabulary
    for (size_t i = out.tokens.size(); i-- > 0;)
      if (out.tokens[i].toolCall && out.tokens[i].messageIndex == m.messageIndex) {
        last = std::max(last, int(i));
        break;
      }
    for (int i = first; i >= 0 && i <= last && i < int(out.tokens.size()); ++i)
      out.tokens[size_t(i)].inGeneration = true;
  }
}

namespace {

// A template that strips the leading whitespace of a message (Qwen3's content.lstrip('\n') for the
// last reply, templates' | trim) can leave the raw content locatable at a coincidental place:
// "\nHello" is found at the template's own "\n" before "Hello", so the reply seems to start inside
// the template's "\n\n" token. Where rendering the message without its leading whitespace gives
// the same text, the template dropped it: the content starts after it. One render per such message.
void dropStrippedLeadingWhitespace(const ChatTemplate& tpl, const std::vector<Message>& messages, RenderOptions ro,
                                   RenderResult& rendered) {
  ro.computeMessageSpans = false;
  for (MessageSpan& span : rendered.messages) {
    if (span.messageIndex < 0 || size_t(span.messageIndex) >= messages.size() || span.content.empty()) continue;
    const std::string& content = messages[size_t(span.messageIndex)].content;
    const size_t lead = content.find_first_not_of(" \t\r\n");
    if (lead == 0 || lead == std::string::npos || span.content.size() != int64_t(content.size()) ||
        rendered.text.compare(size_t(span.content.begin), content.size(), content) != 0)
      continue; // no leading whitespace, or not the verbatim match
    std::vector<Message> variant = messages;
    variant[size_t(span.messageIndex)].content.erase(0, lead);
    try {
      if (tpl.render(variant, ro).text != rendered.text) continue; // the template keeps the whitespace
    } catch (const std::exception&) {
      continue;
    }
    span.content.begin += int64_t(lead);
  }
}

// The processor's expansion of image placeholders (core/media/MediaExpansion.h), for a row with
// image parts: the text grows and every span the template gave moves with it. Returns the images.
std::vector<ImageSpan> expandImages(const std::vector<Message>& messages, const RenderOptions& ro,
                                    RenderResult& rendered, std::string& family) {
  const std::vector<ImagePart> parts = imagePartsOf(messages), videos = videoPartsOf(messages);
  const VisionProcessor* vp = parts.empty() && videos.empty() ? nullptr : visionProcessorForText(rendered.text);
  if (!vp) return {};
  family = vp->name;
  ExpandedImages e = expandImagePlaceholders(rendered.text, parts, *vp, videos, {ro.minPixels, ro.maxPixels});
  rendered.text = std::move(e.text);
  for (MessageSpan& m : rendered.messages) {
    m.block = spanAfterEdits(m.block, e.edits);
    m.content = spanAfterEdits(m.content, e.edits);
  }
  if (rendered.generationSpans)
    for (ByteSpan& g : *rendered.generationSpans) g = spanAfterEdits(g, e.edits);
  return std::move(e.images);
}

void markImageTokens(TokenizedConversation& out) {
  for (const ImageSpan& img : out.images)
    for (TokenInfo& t : out.tokens)
      if (!t.span.empty() && img.block.contains(t.span.begin)) {
        t.image = true;
        t.scaffolding = true;
      }
}

} // namespace

RenderResult renderForModel(const ChatTemplate& tpl, const std::vector<Message>& messages, const RenderOptions& ro) {
  RenderResult r = tpl.render(messages, ro);
  std::string family;
  expandImages(messages, ro, r, family);
  return r;
}

void appendEncodedTokens(const Tokenizer& tokenizer, const Encoding& enc, int64_t offset, TokenizedConversation& out) {
  out.tokens.reserve(out.tokens.size() + enc.size());
  for (size_t i = 0; i < enc.size(); ++i) {
    TokenInfo t;
    t.id = enc.ids[i];
    t.text = tokenizer.displayText(t.id);
    t.span = {enc.offsets[i].begin + offset, enc.offsets[i].end + offset};
    t.special = enc.special[i] != 0;
    t.scaffolding = true;
    out.tokens.push_back(std::move(t));
  }
}

void assignTokensToMessages(TokenizedConversation& conv) {
  for (const MessageSpan& m : conv.messages)
    for (TokenInfo& t : conv.tokens) {
      if (t.span.empty() || !m.block.contains(t.span.begin)) continue;
      t.messageIndex = m.messageIndex;
      t.role = m.role;
      t.turn = m.turn;
      t.scaffolding = t.special || !m.content.overlaps(t.span);
    }
}

std::pair<int, int> tokensCoveringSpan(const std::vector<TokenInfo>& tokens, ByteSpan span, std::string_view text) {
  const int start = charToToken(tokens, characterAt(text, span.begin));
  if (start < 0) return {-1, -1};
  const int end = charToToken(tokens, characterAt(text, span.end - 1));
  // transformers: range(start_token, end_token + 1 if end_token else len(input_ids)).
  if (end <= 0) return {start, int(tokens.size())};
  return {start, std::max(start, end + 1)};
}

std::vector<uint8_t> assistantMaskFromSpans(const std::vector<TokenInfo>& tokens, const std::vector<ByteSpan>& spans,
                                            std::string_view text) {
  std::vector<uint8_t> mask(tokens.size(), 0);
  for (const ByteSpan& s : spans) {
    auto [a, b] = tokensCoveringSpan(tokens, s, text);
    if (a < 0) break; // as transformers: "start_token is out of bounds maybe due to truncation"
    for (int i = a; i < b; ++i) mask[size_t(i)] = 1;
  }
  return mask;
}

TokenizedConversation ConversationEncoder::encode(const Conversation& conv, const EncoderOptions& options) const {
  TokenizedConversation out;
  out.rowIndex = conv.rowIndex;
  RenderResult rendered;
  EncodeOptions eo;
  eo.addSpecialTokens = options.addTokenizerSpecialTokens;
  if (conv.plainText) {
    // Plain prompt/completion strings are concatenated as TRL does, no template involved; TRL's
    // add_eos appends the EOS text to a completion that does not already end with it.
    std::string completion = conv.plainCompletion;
    auto eos = options.render.variables.find("eos_token");
    if (eos != options.render.variables.end() && !eos->second.empty() && !completion.ends_with(eos->second))
      completion += eos->second;
    rendered.text = conv.plainPrompt + completion;
    const int64_t p = int64_t(conv.plainPrompt.size()), t = int64_t(rendered.text.size());
    const int64_t c = p + int64_t(conv.plainCompletion.size());
    rendered.messages = {MessageSpan{0, "user", 0, {0, p}, {0, p}}, MessageSpan{1, "assistant", 0, {p, t}, {p, c}}};
  } else {
    RenderOptions ro = options.render;
    if (ro.tools.is_null() && !conv.tools.is_null()) ro.tools = conv.tools;
    if (ro.extra.is_null() && !conv.extraVariables.is_null()) ro.extra = conv.extraVariables;
    rendered = template_->render(conv.messages, ro);
    dropStrippedLeadingWhitespace(*template_, conv.messages, ro, rendered);
    out.imageParts = int(imagePartsOf(conv.messages).size());
    out.videoParts = int(videoPartsOf(conv.messages).size());
    out.images = expandImages(conv.messages, ro, rendered, out.visionProcessor);
  }
  out.text = std::move(rendered.text);
  out.messages = std::move(rendered.messages);
  out.generationSpans = std::move(rendered.generationSpans);

  out.tokens.clear();
  appendEncodedTokens(*tokenizer_, tokenizer_->encode(out.text, eo), 0, out);
  assignTokensToMessages(out);
  markImageTokens(out);
  markThinkSpans(out);
  if (!conv.plainText) markToolCallSpans(out, conv.messages);
  // Reply positions.
  if (out.generationSpans) {
    std::vector<uint8_t> mask = assistantMaskFromSpans(out.tokens, *out.generationSpans, out.text);
    for (size_t i = 0; i < mask.size(); ++i) out.tokens[i].inGeneration = mask[i] != 0;
  } else {
    auto eos = options.render.variables.find("eos_token");
    markRecoveredReplies(out, eos == options.render.variables.end() ? std::string() : eos->second);
  }
  // Where the completion starts, as TRL's tokenize step: len(tokenize(prompt)).
  if (conv.plainText) {
    out.completionStart = int(std::min(tokenizer_->encode(conv.plainPrompt, eo).size(), out.tokens.size()));
  } else if (conv.promptMessageCount >= 0) {
    std::vector<Message> prompt(conv.messages.begin(),
                                conv.messages.begin() +
                                    std::min<long>(conv.promptMessageCount, long(conv.messages.size())));
    RenderOptions ro = options.render;
    ro.addGenerationPrompt = true;
    ro.computeMessageSpans = false;
    if (ro.tools.is_null() && !conv.tools.is_null()) ro.tools = conv.tools;
    if (ro.extra.is_null() && !conv.extraVariables.is_null()) ro.extra = conv.extraVariables;
    const RenderResult p = renderForModel(*template_, prompt, ro);
    out.completionStart = int(std::min(tokenizer_->encode(p.text, eo).size(), out.tokens.size()));
  }
  return out;
}

} // namespace maskscope
