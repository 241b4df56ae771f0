// Template- and conversation-level checks. Token positions reported here are positions in the
// conversation's own tokenization (before the collator adds BOS or truncates).
#include "core/lint/TemplateChecks.h"

namespace maskscope {

namespace {
std::string num(int64_t v) { return std::to_string(v); }

std::string quoted(const Tokenizer& tok, int64_t id) {
  return "\"" + tok.idToToken(int32_t(id)) + "\" (id " + num(id) + ")";
}
} // namespace

SpecialTokenIds effectiveSpecialTokens(const Tokenizer& tok, const RenderOptions& render) {
  SpecialTokenIds sp = tok.specialTokens();
  auto adopt = [&](const char* key, std::optional<int32_t>& id, std::string& text) {
    auto it = render.variables.find(key);
    if (it == render.variables.end() || it->second.empty()) return;
    if (auto found = tok.tokenToId(it->second)) {
      id = *found;
      text = it->second;
    }
  };
  adopt("bos_token", sp.bos, sp.bosText);
  adopt("eos_token", sp.eos, sp.eosText);
  adopt("pad_token", sp.pad, sp.padText);
  return sp;
}

void runTemplateChecks(const ConversationEncoder& enc, const RenderOptions& render, const RoleMarkers& markers,
                       const CollatorSpec* collator, FindingCollector& out) {
  const Tokenizer& tok = enc.tokenizer();
  const ChatTemplate& tpl = enc.chatTemplate();
  const SpecialTokenIds sp = effectiveSpecialTokens(tok, render);
  if (!sp.pad && (!collator || collator->padToken.empty()))
    out.add("pad-token-missing", std::nullopt, std::nullopt,
            "the tokenizer has no pad token" +
                (sp.eos ? "; padding falls back to EOS " + quoted(tok, *sp.eos) : std::string("; padding uses id 0")));
  if (markers.closingToken && sp.eos && *markers.closingToken != *sp.eos)
    out.add("eos-mismatch", std::nullopt, std::nullopt,
            "the template '" + tpl.name() + "' closes assistant replies with " + quoted(tok, *markers.closingToken) +
                ", but the tokenizer's EOS is " + quoted(tok, *sp.eos));
  // Only where TRL's assistant_only_loss is what the collator mirrors (trl-* presets, custom specs):
  // maskscope's own presets locate replies from the message contents.
  bool mirrorsTrl = collator && collator->name.rfind("trl-", 0) == 0;
  if (collator && !mirrorsTrl) {
    bool isPreset = false;
    for (const CollatorPreset& p : collatorPresets())
      isPreset = isPreset || collator->name == p.name || collator->name.rfind(p.name + ",", 0) == 0;
    mirrorsTrl = !isPreset;
  }
  if (collator && collator->labels == LabelMode::AssistantOnly && mirrorsTrl && !tpl.hasGenerationMarkers())
    out.add("template-no-generation-markers", std::nullopt, std::nullopt,
            "collator '" + collator->name + "' grades assistant replies only, but the template '" + tpl.name() +
                "' has no {% generation %} blocks (TRL's assistant_only_loss would find no reply tokens)");
  // Prefix preservation over the probe: render of the first k messages vs the full render.
  const std::vector<Message>& msgs = markers.probeMessages;
  if (msgs.size() >= 2 && !markers.probe.text.empty()) {
    RenderOptions ro = render;
    ro.addGenerationPrompt = false;
    for (size_t k = 1; k < msgs.size(); ++k) {
      std::vector<Message> prefix(msgs.begin(), msgs.begin() + long(k));
      try {
        RenderResult rr = tpl.render(prefix, ro);
        if (!markers.probe.text.starts_with(rr.text)) {
          size_t d = 0;
          while (d < rr.text.size() && d < markers.probe.text.size() && rr.text[d] == markers.probe.text[d]) ++d;
          out.add("template-not-prefix-preserving", std::nullopt, std::nullopt,
                  "the template '" + tpl.name() + "' renders the first " + num(int64_t(k)) +
                      " messages of a probe chat differently from the same messages inside the full chat (texts differ "
                      "from byte " +
                      num(int64_t(d)) + ")");
          break;
        }
      } catch (const std::exception&) {
        // A template may refuse a prefix (e.g. one that must end with a user turn): not a finding.
      }
    }
  }
}

void runConversationChecks(const TokenizedConversation& tc, long row, FindingCollector& out) {
  for (const MessageSpan& m : tc.messages) {
    if (m.content.empty()) continue;
    for (size_t i = 0; i < tc.tokens.size(); ++i) {
      const TokenInfo& t = tc.tokens[i];
      if (!t.special || t.span.empty() || !m.content.overlaps(t.span)) continue;
      out.add("special-token-injection", row, int64_t(i),
              "row " + num(row) + ": the content of message " + num(m.messageIndex) + " (" + m.role + ") contains \"" +
                  tc.text.substr(size_t(t.span.begin), size_t(t.span.size())) + "\", which becomes special token id " +
                  num(t.id) + " at position " + num(int64_t(i)));
      return;
    }
  }
  for (const MessageSpan& m : tc.messages) {
    if (m.role != "assistant" || m.content.empty()) continue;
    for (size_t i = 0; i < tc.tokens.size(); ++i) {
      const TokenInfo& t = tc.tokens[i];
      if (t.span.begin < m.content.begin && t.span.end > m.content.begin) {
        out.add("boundary-merge", row, int64_t(i),
                "row " + num(row) + ": token " + num(int64_t(i)) + " (\"" + t.text +
                    "\") spans the end of the prompt and the start of the reply of message " + num(m.messageIndex));
        return;
      }
    }
  }
}

void runPrefixChecks(const ConversationEncoder& enc, const RenderOptions& render, const Conversation& conv,
                     const TokenizedConversation& full, FindingCollector& out) {
  if (conv.plainText) return;
  int last = -1;
  for (size_t i = 0; i < conv.messages.size(); ++i)
    if (conv.messages[i].role == "assistant") last = int(i);
  if (last < 0) return;
  const long row = conv.rowIndex;
  RenderOptions ro = render;
  ro.addGenerationPrompt = true;
  if (ro.tools.is_null() && !conv.tools.is_null()) ro.tools = conv.tools;
  if (ro.extra.is_null() && !conv.extraVariables.is_null()) ro.extra = conv.extraVariables;
  std::vector<Message> prompt(conv.messages.begin(), conv.messages.begin() + last);
  RenderResult rr;
  try {
    rr = enc.chatTemplate().render(prompt, ro);
  } catch (const std::exception&) {
    return; // the template refuses this prompt alone; the full render was fine
  }
  if (!full.text.starts_with(rr.text)) {
    out.add("template-not-prefix-preserving", row, std::nullopt,
            "row " + std::to_string(row) +
                ": the prompt rendered with add_generation_prompt=True is not the start of "
                "the full render, so a mask computed from the prompt's length points at the wrong tokens");
    return;
  }
  Encoding pe = enc.tokenizer().encode(rr.text, {});
  for (size_t i = 0; i < pe.size(); ++i) {
    if (i >= full.tokens.size() || full.tokens[i].id != pe.ids[i]) {
      out.add("boundary-merge", row, int64_t(i),
              "row " + std::to_string(row) + ": the prompt's " + std::to_string(pe.size()) +
                  " tokens are not a prefix of the full tokenization (they differ at position " + std::to_string(i) +
                  ")");
      return;
    }
  }
}

} // namespace maskscope
