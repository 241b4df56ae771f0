// Header/footer learning and matching. The header of a role is taken from its *second* message in
// the probe when there is one, since first messages may carry conversation-level text (BOS, a
// default system prompt); the footer is cut after its last special token so that whitespace after
// the turn (which may merge with what follows) is not required to match.
#include "core/lint/RoleRecovery.h"
#include "core/collate/Collator.h"
#include "core/lint/RowLayout.h"
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

bool matchAt(const Batch& b, int64_t r, int64_t t, int64_t end, const std::vector<int32_t>& seq) {
  if (seq.empty() || t + int64_t(seq.size()) > end) return false;
  for (size_t i = 0; i < seq.size(); ++i)
    if (b.inputIds.at(r, t + int64_t(i)) != seq[i]) return false;
  return true;
}

} // namespace

RoleMarkers learnRoleMarkers(const ConversationEncoder& encoder, const RenderOptions& render) {
  RoleMarkers out;
  EncoderOptions eo;
  eo.render = render;
  eo.render.addGenerationPrompt = false;
  for (bool withSystem : {true, false}) {
    Conversation c;
    c.messages = probeConversation(withSystem);
    try {
      out.probe = encoder.encode(c, eo);
      out.probeMessages = c.messages;
      break;
    } catch (const jinja::TemplateLimitError&) {
      throw; // a sandbox limit on a probe: the template is unusable for every row
    } catch (const std::exception&) {
      continue;
    }
  }
  const TokenizedConversation& tc = out.probe;
  std::map<std::string, RoleMarker> byRole;
  for (const MessageSpan& ms : tc.messages) {
    if (ms.block.empty() || ms.content.empty()) continue;
    RoleMarker mk;
    mk.role = ms.role;
    mk.kind = kindOfRole(ms.role);
    // The footer ends at the block's last special token; a reply's at its closing token as the
    // encoder found it (Llama-3's template prints the next header inside the last block).
    int lastSpecial = -1, lastReply = -1;
    for (const TokenInfo& t : tc.tokens) {
      if (t.span.empty()) continue;
      if (t.span.begin >= ms.block.begin && t.span.end <= ms.content.begin) mk.header.push_back(t.id);
      if (t.span.begin >= ms.content.end && t.span.begin < ms.block.end) {
        mk.footer.push_back(t.id);
        if (t.special) lastSpecial = int(mk.footer.size()) - 1;
        if (t.special && t.inGeneration) lastReply = int(mk.footer.size()) - 1;
      }
    }
    if (mk.kind == PositionKind::Assistant && lastReply >= 0) lastSpecial = lastReply;
    if (lastSpecial >= 0) {
      mk.footer.resize(size_t(lastSpecial) + 1);
      mk.closingIndex = lastSpecial;
    }
    if (mk.header.empty()) continue;
    auto it = byRole.find(ms.role);
    if (it == byRole.end())
      byRole.emplace(ms.role, mk);
    else {
      // Prefer the later message's header (no conversation-level text in it).
      it->second = mk;
    }
  }
  for (auto& [role, mk] : byRole) out.roles.push_back(mk);
  std::sort(out.roles.begin(), out.roles.end(),
            [](const RoleMarker& a, const RoleMarker& b) { return a.header.size() > b.header.size(); });
  for (const RoleMarker& mk : out.roles)
    if (mk.kind == PositionKind::Assistant && mk.closingIndex >= 0)
      out.closingToken = mk.footer[size_t(mk.closingIndex)];
  return out;
}

long recoverRoles(Batch& b, const RoleMarkers& markers, const Tokenizer& tok) {
  const int64_t B = b.inputIds.rows, T = b.inputIds.cols;
  b.meta.assign(size_t(B), std::vector<PositionMeta>(size_t(T)));
  long found = 0;
  for (int64_t r = 0; r < B; ++r) {
    // Padding and examples as the raw batch says (meta is blank here, so rowLayout reads the masks).
    std::vector<std::vector<PositionMeta>> saved;
    saved.swap(b.meta);
    const RowLayout L = rowLayout(b, r);
    saved.swap(b.meta);
    auto& meta = b.meta[size_t(r)];
    for (int64_t t = 0; t < T; ++t) {
      PositionMeta& m = meta[size_t(t)];
      m.kind = L.pad[size_t(t)] ? PositionKind::Padding : PositionKind::Template;
      m.scaffolding = true;
      const int64_t id = b.inputIds.at(r, t);
      m.special = id >= 0 && id <= INT32_MAX && tok.isSpecial(int32_t(id));
    }
    for (const ExampleRange& ex : L.examples) {
      int32_t message = -1, turn = -1;
      int64_t t = ex.begin;
      while (t < ex.end) {
        const RoleMarker* mk = nullptr;
        for (const RoleMarker& cand : markers.roles)
          if (matchAt(b, r, t, ex.end, cand.header)) {
            mk = &cand;
            break;
          }
        if (!mk) {
          ++t;
          continue;
        }
        ++message;
        ++found;
        if (mk->kind == PositionKind::User) ++turn;
        const bool assistant = mk->kind == PositionKind::Assistant;
        const int64_t contentBegin = t + int64_t(mk->header.size());
        // The footer (or, without one, the next header) ends the content.
        // A footer counts when a header (or the end of the example) follows within two tokens:
        // a closing token typed inside the content (special-token injection) does not end it.
        auto headerAt = [&](int64_t u) {
          for (const RoleMarker& cand : markers.roles)
            if (matchAt(b, r, u, ex.end, cand.header)) return true;
          return false;
        };
        auto footerEndsMessage = [&](int64_t v) {
          for (int64_t w = v; w <= std::min(v + 2, ex.end); ++w)
            if (w == ex.end || headerAt(w)) return true;
          return false;
        };
        int64_t contentEnd = -1, footerEnd = -1, firstFooter = -1;
        for (int64_t u = contentBegin; u < ex.end; ++u) {
          if (!mk->footer.empty() && matchAt(b, r, u, ex.end, mk->footer)) {
            if (firstFooter < 0) firstFooter = u;
            if (!footerEndsMessage(u + int64_t(mk->footer.size()))) continue;
            contentEnd = u;
            footerEnd = u + int64_t(mk->footer.size());
            break;
          }
          if (mk->footer.empty()) {
            if (headerAt(u)) {
              contentEnd = footerEnd = u;
              break;
            }
          }
        }
        if (contentEnd < 0 && firstFooter >= 0) {
          contentEnd = firstFooter;
          footerEnd = firstFooter + int64_t(mk->footer.size());
        }
        const bool truncated = contentEnd < 0 && !mk->footer.empty();
        if (contentEnd < 0) contentEnd = footerEnd = ex.end;
        for (int64_t u = t; u < footerEnd; ++u) {
          PositionMeta& m = meta[size_t(u)];
          m.kind = mk->kind;
          m.messageIndex = message;
          m.turn = std::max<int32_t>(turn, 0);
          m.scaffolding = u < contentBegin || u >= contentEnd;
          if (assistant && u >= contentBegin) {
            m.reply = u < contentEnd || (mk->closingIndex >= 0 && u <= contentEnd + mk->closingIndex);
            m.closesReply = mk->closingIndex >= 0 && u == contentEnd + mk->closingIndex && !truncated;
            m.replyTruncated = truncated;
          }
        }
        t = std::max(footerEnd, t + 1);
      }
    }
  }
  return found;
}

} // namespace maskscope
