// Preference pairs -> two tokenized sequences (see PreferencePairs.h). The TRL steps reproduced:
// data_utils.apply_chat_template (prompt with add_generation_prompt, prompt + side rendered whole,
// the prompt cut to their common prefix, the side = the rest) and DPOTrainer.tokenize_row
// (prompt and side tokenized separately without special tokens, eos_token_id appended to the side).
#include "core/collate/PreferencePairs.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

namespace {

std::string commonPrefix(const std::string& a, const std::string& b) {
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return std::string(a.begin(), ia);
}

// The full render of prompt + side and TRL's prompt text for it.
void renderSide(const DatasetPipeline& p, const Conversation& c, PreferenceSide& side, std::string& full,
                std::vector<MessageSpan>& spans) {
  if (c.plainText) {
    side.promptRendered = side.promptText = c.plainPrompt;
    full = c.plainPrompt + c.plainCompletion;
    const int64_t n = int64_t(c.plainPrompt.size()), t = int64_t(full.size());
    spans = {MessageSpan{0, "user", 0, {0, n}, {0, n}}, MessageSpan{1, "assistant", 0, {n, t}, {n, t}}};
    return;
  }
  RenderOptions ro = p.renderOptions();
  if (ro.tools.is_null() && !c.tools.is_null()) ro.tools = c.tools;
  if (ro.extra.is_null() && !c.extraVariables.is_null()) ro.extra = c.extraVariables;
  ro.addGenerationPrompt = false;
  RenderResult whole = p.chatTemplate().render(c.messages, ro);
  // TRL: add_generation_prompt after a user turn; after an assistant turn it continues that message.
  const std::vector<Message> prompt(c.messages.begin(), c.messages.begin() + c.promptMessageCount);
  ro.addGenerationPrompt = prompt.empty() || kindOfRole(prompt.back().role) != PositionKind::Assistant;
  ro.computeMessageSpans = false;
  side.promptRendered = p.chatTemplate().render(prompt, ro).text;
  side.promptText = commonPrefix(side.promptRendered, whole.text);
  full = std::move(whole.text);
  spans = std::move(whole.messages);
}

PreferenceSide encodeSide(const DatasetPipeline& p, const Conversation& c) {
  PreferenceSide side;
  TokenizedConversation& out = side.encoded;
  out.rowIndex = c.rowIndex;
  std::string full;
  renderSide(p, c, side, full, out.messages);
  const Tokenizer& tok = p.tokenizer();
  const int64_t promptBytes = int64_t(side.promptText.size());
  appendEncodedTokens(tok, tok.encode(side.promptText, EncodeOptions{}), 0, out);
  out.completionStart = int(out.tokens.size());
  appendEncodedTokens(tok, tok.encode(full.substr(size_t(promptBytes)), EncodeOptions{}), promptBytes, out);
  out.text = full;
  // DPOTrainer.tokenize_row: chosen_input_ids + [eos_token_id], even when the side already ends with it.
  if (const auto eos = p.collator().eosId()) {
    TokenInfo t;
    t.id = int32_t(*eos);
    t.text = tok.displayText(t.id);
    const std::string piece = tok.idToToken(t.id);
    t.span = {int64_t(out.text.size()), int64_t(out.text.size() + piece.size())};
    out.text += piece;
    t.special = true;
    t.scaffolding = true;
    out.tokens.push_back(std::move(t));
  }
  assignTokensToMessages(out);
  // The appended EOS lies past every block: it closes the last message.
  if (!out.tokens.empty() && !out.messages.empty() && out.tokens.back().messageIndex < 0 &&
      out.completionStart < int(out.tokens.size())) {
    const MessageSpan& last = out.messages.back();
    out.tokens.back().messageIndex = last.messageIndex;
    out.tokens.back().role = last.role;
    out.tokens.back().turn = last.turn;
  }
  for (size_t i = size_t(out.completionStart); i < out.tokens.size(); ++i) out.tokens[i].inGeneration = true;
  const Encoding joint = tok.encode(full, EncodeOptions{});
  for (size_t i = 0; i < joint.size() && joint.offsets[i].begin < promptBytes; ++i)
    side.jointPromptIds.push_back(joint.ids[i]);
  return side;
}

} // namespace

EncodedPreference encodePreference(const DatasetPipeline& p, const PreferenceRow& row) {
  EncodedPreference e;
  e.rowIndex = row.rowIndex;
  e.sourceLine = row.sourceLine;
  e.sourceItem = row.sourceItem;
  e.chosen = encodeSide(p, row.side(true));
  e.rejected = encodeSide(p, row.side(false));
  return e;
}

PreferenceBatches collatePreference(const DatasetPipeline& p, const std::vector<EncodedPreference>& pairs) {
  std::vector<TokenizedConversation> chosen, rejected;
  for (const EncodedPreference& e : pairs) {
    chosen.push_back(e.chosen.encoded);
    rejected.push_back(e.rejected.encoded);
  }
  return {p.collate(chosen), p.collate(rejected)};
}

} // namespace maskscope
