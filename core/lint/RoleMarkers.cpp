// Learning what a template writes around messages, from probe conversations rendered and tokenized
// as collate does. Only message contents are located in the render (verbatim, reliable); the
// tokens between two contents are split into the first message's footer (through the first token
// that ends a turn, as collate's markRecoveredReplies decides), whitespace the template writes after
// it, and the next message's header. A role's header is the part common to all its turns after the
// first message (Qwen3 writes an empty <think></think> after the last reply's header only), from
// a conversation without a system message; the system header is the start of a conversation with
// one, minus what a conversation opens with.
#include "core/collate/Collator.h"
#include "core/lint/RoleRecovery.h"
#include "core/template/jinja/Template.h"

#include <algorithm>
#include <map>

namespace maskscope {

namespace {

std::vector<Message> probeConversation(bool withSystem) {
  std::vector<Message> m;
  if (withSystem) m.push_back({"system", "Probe system words here.", nullptr});
  m.push_back({"user", "Probe user words one.", nullptr});
  m.push_back({"assistant", "Probe assistant words one.", nullptr});
  m.push_back({"user", "Probe user words two.", nullptr});
  m.push_back({"assistant", "Probe assistant words two.", nullptr});
  return m;
}

std::optional<TokenizedConversation> encodeProbe(const ConversationEncoder& enc, const RenderOptions& render,
                                                 const std::vector<Message>& messages) {
  EncoderOptions eo;
  eo.render = render;
  eo.render.addGenerationPrompt = false;
  Conversation c;
  c.messages = messages;
  try {
    return enc.encode(c, eo);
  } catch (const jinja::TemplateLimitError&) {
    throw; // a sandbox limit on a probe: the template is unusable for every row
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string_view textOf(const TokenizedConversation& tc, size_t i) {
  const ByteSpan s = tc.tokens[i].span;
  if (s.empty() || s.begin < 0 || s.end > int64_t(tc.text.size())) return {};
  return std::string_view(tc.text).substr(size_t(s.begin), size_t(s.size()));
}

bool whitespaceOnly(std::string_view s) {
  return !s.empty() && s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// One located message of a probe: its role and the token range of its content.
struct Located {
  std::string role;
  int first = 0, end = 0; // content tokens [first, end)
};

std::vector<Located> locate(const TokenizedConversation& tc) {
  std::vector<Located> out;
  int prevEnd = 0;
  for (const MessageSpan& m : tc.messages) {
    if (m.content.empty()) continue; // not found verbatim (Gemma's system text inside the user turn)
    const auto [a, b] = tokensCoveringSpan(tc.tokens, m.content, tc.text);
    if (a < prevEnd || b <= a) continue;
    out.push_back({m.role, a, b});
    prevEnd = b;
  }
  return out;
}

std::vector<int32_t> idsOf(const TokenizedConversation& tc, int begin, int end) {
  std::vector<int32_t> ids;
  for (int i = begin; i < end; ++i) ids.push_back(tc.tokens[size_t(i)].id);
  return ids;
}

// Splits the tokens [begin, end) between two contents: footer (through the first end-of-turn
// token), whitespace, header. gap: the whitespace, when the footer ends with an end-of-turn token.
void splitGap(const TokenizedConversation& tc, int begin, int end, const std::string& eos, std::vector<int32_t>* footer,
              std::vector<int32_t>* header, std::optional<std::vector<int32_t>>* gap = nullptr) {
  int h = begin;
  bool closed = false;
  for (int i = begin; i < end; ++i)
    if (tc.tokens[size_t(i)].special && endsTurn(textOf(tc, size_t(i)), eos)) {
      h = i + 1;
      closed = true;
      break;
    }
  if (footer) *footer = idsOf(tc, begin, h);
  const int footerEnd = h;
  while (h < end && whitespaceOnly(textOf(tc, size_t(h)))) ++h;
  if (header) *header = idsOf(tc, h, end);
  if (gap && closed) *gap = idsOf(tc, footerEnd, h);
}

void addGap(RoleMarkers& out, const std::optional<std::vector<int32_t>>& gap) {
  if (gap && std::find(out.gapsBeforeUser.begin(), out.gapsBeforeUser.end(), *gap) == out.gapsBeforeUser.end())
    out.gapsBeforeUser.push_back(*gap);
}

std::vector<int32_t> commonPrefix(const std::vector<std::vector<int32_t>>& seqs) {
  if (seqs.empty()) return {};
  std::vector<int32_t> p = seqs.front();
  for (const auto& s : seqs) {
    size_t k = 0;
    while (k < p.size() && k < s.size() && p[k] == s[k]) ++k;
    p.resize(k);
  }
  return p;
}

bool occursAfterStart(const TokenizedConversation& tc, const std::vector<int32_t>& seq) {
  for (size_t i = 1; i + seq.size() <= tc.tokens.size(); ++i) {
    size_t k = 0;
    while (k < seq.size() && tc.tokens[i + k].id == seq[k]) ++k;
    if (k == seq.size()) return true;
  }
  return false;
}

// Headers and footers of each role of a conversation without a system message, its prefix, and
// the id pairs between turns.
void learnFromTurns(const TokenizedConversation& tc, const std::string& eos, RoleMarkers& out,
                    std::map<std::string, RoleMarker>& byRole) {
  const std::vector<Located> loc = locate(tc);
  std::map<std::string, std::vector<std::vector<int32_t>>> headers, footers;
  for (size_t i = 0; i < loc.size(); ++i) {
    const int gapEnd = i + 1 < loc.size() ? loc[i + 1].first : int(tc.tokens.size());
    std::vector<int32_t> footer, header;
    std::optional<std::vector<int32_t>> gap;
    splitGap(tc, loc[i].end, gapEnd, eos, &footer, &header, &gap);
    if (i + 1 < loc.size() && loc[i + 1].role == "user") addGap(out, gap);
    footers[loc[i].role].push_back(footer);
    if (i + 1 < loc.size()) {
      headers[loc[i + 1].role].push_back(header);
      for (int k = std::max(loc[i].end, 1); k <= loc[i + 1].first; ++k)
        out.turnJoins.emplace_back(tc.tokens[size_t(k - 1)].id, tc.tokens[size_t(k)].id);
    }
  }
  for (auto& [role, list] : headers) {
    RoleMarker& mk = byRole[role];
    mk.role = role;
    mk.kind = kindOfRole(role);
    mk.header = commonPrefix(list);
    mk.footer = commonPrefix(footers[role]);
  }
  // What the conversation opens with: the tokens before the first header, when they appear nowhere
  // else (a BOS the template also writes between turns, as Llama 2's, is no sign of a new one).
  if (!loc.empty() && byRole.count(loc[0].role)) {
    const std::vector<int32_t> open = idsOf(tc, 0, loc[0].first);
    const std::vector<int32_t>& h = byRole[loc[0].role].header;
    if (!h.empty() && open.size() > h.size() && std::equal(h.rbegin(), h.rend(), open.rbegin())) {
      out.conversationPrefix.assign(open.begin(), open.end() - long(h.size()));
      if (occursAfterStart(tc, out.conversationPrefix)) out.conversationPrefix.clear();
    }
  }
}

// The system header: how a conversation with a system message opens, minus the prefix.
void learnSystem(const TokenizedConversation& tc, const std::string& eos, RoleMarkers& out,
                 std::map<std::string, RoleMarker>& byRole) {
  const std::vector<Located> loc = locate(tc);
  if (loc.size() < 2 || loc[0].role != "system") return;
  std::vector<int32_t> open = idsOf(tc, 0, loc[0].first);
  const std::vector<int32_t>& p = out.conversationPrefix;
  if (!p.empty() && open.size() >= p.size() && std::equal(p.begin(), p.end(), open.begin()))
    open.erase(open.begin(), open.begin() + long(p.size()));
  RoleMarker mk;
  mk.role = "system";
  mk.kind = PositionKind::System;
  mk.header = open;
  std::optional<std::vector<int32_t>> gap;
  splitGap(tc, loc[0].end, loc[1].first, eos, &mk.footer, nullptr, &gap);
  if (loc[1].role == "user") addGap(out, gap);
  // A header another role writes too (Gemma puts the system text inside the first user turn) is no marker.
  for (const auto& [role, other] : byRole)
    if (other.header == mk.header) return;
  if (!mk.header.empty()) byRole["system"] = mk;
  for (int k = std::max(loc[0].end, 1); k <= loc[1].first; ++k)
    out.turnJoins.emplace_back(tc.tokens[size_t(k - 1)].id, tc.tokens[size_t(k)].id);
}

// Whether the template keeps a reasoning block only in the replies after the last user turn (Qwen3
// drops it from earlier replies): then a reply with one followed by a user turn ends a conversation.
bool keepsThinkOnlyInFinalReply(const ChatTemplate& t, const RenderOptions& render) {
  std::vector<Message> m = probeConversation(false);
  m[1].content = "<think>\nProbe thought one.\n</think>\n\nProbe assistant words one.";
  m[3].content = "<think>\nProbe thought two.\n</think>\n\nProbe assistant words two.";
  RenderOptions ro = render;
  ro.addGenerationPrompt = false;
  ro.computeMessageSpans = false;
  try {
    const std::string text = t.render(m, ro).text;
    return text.find("Probe thought one.") == std::string::npos && text.find("Probe thought two.") != std::string::npos;
  } catch (const jinja::TemplateLimitError&) {
    throw;
  } catch (const std::exception&) {
    return false;
  }
}

} // namespace

RoleMarkers learnRoleMarkers(const ConversationEncoder& encoder, const RenderOptions& render) {
  RoleMarkers out;
  auto eos = render.variables.find("eos_token");
  out.eosText = eos == render.variables.end() ? std::string() : eos->second;
  const std::optional<TokenizedConversation> plain = encodeProbe(encoder, render, probeConversation(false));
  const std::optional<TokenizedConversation> withSystem = encodeProbe(encoder, render, probeConversation(true));
  if (withSystem || plain) {
    out.probe = withSystem ? *withSystem : *plain;
    out.probeMessages = probeConversation(bool(withSystem));
  }
  std::map<std::string, RoleMarker> byRole;
  if (plain) learnFromTurns(*plain, out.eosText, out, byRole);
  if (withSystem) learnSystem(*withSystem, out.eosText, out, byRole);
  for (auto& [role, mk] : byRole)
    if (!mk.header.empty()) out.roles.push_back(mk);
  std::sort(out.roles.begin(), out.roles.end(),
            [](const RoleMarker& a, const RoleMarker& b) { return a.header.size() > b.header.size(); });
  std::sort(out.turnJoins.begin(), out.turnJoins.end());
  out.turnJoins.erase(std::unique(out.turnJoins.begin(), out.turnJoins.end()), out.turnJoins.end());
  out.thinkOnlyInFinalReply = keepsThinkOnlyInFinalReply(encoder.chatTemplate(), render);
  // The closing token as collate marks it (positionMetaOf on the probe's own encoding).
  if (!out.probe.tokens.empty()) {
    const std::vector<PositionMeta> meta = positionMetaOf(out.probe);
    for (size_t i = 0; i < meta.size(); ++i)
      if (meta[i].closesReply && meta[i].kind == PositionKind::Assistant) out.closingToken = out.probe.tokens[i].id;
  }
  return out;
}

} // namespace maskscope
