// Matching the learnt markers in a dump's ids, then collate's own reply rules on what was found; see
// RoleRecovery.h. Per row: the examples the grids show (padding, segment ids, position resets,
// separators), the messages in each (a header, then the content up to the role's footer), the
// template's signs that a new conversation starts; then per conversation a TokenizedConversation
// built from the ids, given to markThinkSpans, markRecoveredReplies and positionMetaOf.
#include "core/lint/RoleRecovery.h"
#include "core/collate/Collator.h"
#include "core/lint/RowLayout.h"
#include "core/util/Utf8.h"

#include <algorithm>
#include <set>

namespace maskscope {

namespace {

// One message found in the ids: [begin, contentBegin) header, [contentBegin, contentEnd) content,
// [contentEnd, end) footer.
struct Found {
  const RoleMarker* mk = nullptr;
  int64_t begin = 0, contentBegin = 0, contentEnd = 0, end = 0;
  bool truncated = false; // the example ends before the role's footer
};

class RowMatcher {
public:
  RowMatcher(const Batch& b, int64_t r, const RoleMarkers& m, const Tokenizer& tok) : b_(b), r_(r), m_(m), tok_(tok) {
    for (const RoleMarker& mk : m.roles) {
      markerIds_.insert(mk.header.begin(), mk.header.end());
      markerIds_.insert(mk.footer.begin(), mk.footer.end());
    }
    markerIds_.insert(m.conversationPrefix.begin(), m.conversationPrefix.end());
    for (const RoleMarker& mk : m.roles)
      if (!mk.footer.empty()) closingIds_.insert(mk.footer.back());
  }

  bool matchAt(int64_t t, int64_t end, const std::vector<int32_t>& seq) const {
    if (seq.empty() || t < 0 || t + int64_t(seq.size()) > end) return false;
    for (size_t i = 0; i < seq.size(); ++i)
      if (b_.inputIds.at(r_, t + int64_t(i)) != seq[i]) return false;
    return true;
  }
  const RoleMarker* headerAt(int64_t t, int64_t end) const {
    for (const RoleMarker& mk : m_.roles)
      if (matchAt(t, end, mk.header)) return &mk;
    return nullptr;
  }
  // The conversation prefix, followed by a message header.
  bool prefixAt(int64_t t, int64_t end) const {
    return matchAt(t, end, m_.conversationPrefix) && headerAt(t + int64_t(m_.conversationPrefix.size()), end);
  }
  // What a person reads for [from, to): the ids' pieces (special tokens as the vocabulary spells them).
  std::string pieceOf(int64_t id) const {
    if (id < 0 || id >= tok_.vocabSize()) return "#" + std::to_string(id);
    const std::string s = tok_.isSpecial(int32_t(id)) ? tok_.idToToken(int32_t(id)) : tok_.displayText(int32_t(id));
    return s.empty() ? std::string("\xc2\xb7") : s; // every token keeps a byte, so it belongs to a message
  }
  // A special token the template never writes around a message (an EOS, pad or <|endoftext|> put
  // between conversations): outside any message, it separates two conversations.
  bool separatorAt(int64_t t) const {
    const int64_t id = b_.inputIds.at(r_, t);
    return id >= 0 && id < tok_.vocabSize() && tok_.isSpecial(int32_t(id)) && !markerIds_.count(int32_t(id));
  }
  std::string textOf(int64_t from, int64_t to) const {
    std::string s;
    for (int64_t t = from; t < to; ++t) s += pieceOf(b_.inputIds.at(r_, t));
    return s;
  }

  std::vector<Found> messages(const ExampleRange& ex, std::vector<int64_t>& starts,
                              std::vector<ReplyJoin>& joins) const;
  // The row opens inside a message: a turn's closing token before the first message found.
  bool opensMidMessage(const ExampleRange& ex, const std::vector<Found>& msgs) const {
    const int64_t first = msgs.empty() ? ex.begin : msgs.front().begin;
    for (int64_t t = ex.begin; t < first; ++t)
      if (closingIds_.count(int32_t(std::clamp<int64_t>(b_.inputIds.at(r_, t), INT32_MIN, INT32_MAX)))) return true;
    return false;
  }

private:
  // A footer ending at v closes its message when a header, the conversation prefix or the end of
  // the example follows within three tokens (so a closing token typed inside the content does not).
  bool endsMessage(int64_t v, int64_t end) const {
    for (int64_t w = v; w <= std::min(v + 3, end); ++w)
      if (w == end || headerAt(w, end) || prefixAt(w, end)) return true;
    return false;
  }
  void findContentEnd(Found& f, int64_t end) const;
  void noteReplyJoin(const Found& reply, int64_t next, std::vector<int64_t>& starts,
                     std::vector<ReplyJoin>& joins) const;
  std::string shown(int64_t id) const {
    const std::string s = pieceOf(id);
    return id >= 0 && id < tok_.vocabSize() && tok_.isSpecial(int32_t(id)) ? s : utf8::visibleWhitespace(s);
  }

  const Batch& b_;
  int64_t r_;
  const RoleMarkers& m_;
  const Tokenizer& tok_;
  std::set<int32_t> markerIds_;  // every id of a header, footer or the conversation prefix
  std::set<int32_t> closingIds_; // the last id of every non-empty footer (a turn's closing token)
};

// A user header at next after a closed reply: the ids between them are what the template writes between
// turns (the join is noted, ambiguous), or a join it never writes (a conversation starts at next). Only
// whitespace and special tokens count as a join; text there is no join of two turns.
void RowMatcher::noteReplyJoin(const Found& reply, int64_t next, std::vector<int64_t>& starts,
                               std::vector<ReplyJoin>& joins) const {
  if (reply.mk->kind != PositionKind::Assistant || reply.truncated || reply.mk->footer.empty() ||
      m_.gapsBeforeUser.empty() || reply.end > next)
    return;
  std::vector<int32_t> gap;
  for (int64_t t = reply.end; t < next; ++t) {
    const int64_t id = b_.inputIds.at(r_, t);
    if (id < 0 || id >= tok_.vocabSize()) return;
    const bool special = tok_.isSpecial(int32_t(id));
    // decoded, not displayed: SentencePiece's "▁" is a space
    const std::string text = special ? std::string() : tok_.decode(std::vector<int32_t>{int32_t(id)});
    if (!special && text.find_first_not_of(" \t\r\n") != std::string::npos) return;
    gap.push_back(int32_t(id));
  }
  ReplyJoin j;
  j.gapBegin = reply.end;
  j.next = next;
  j.asTemplate = std::find(m_.gapsBeforeUser.begin(), m_.gapsBeforeUser.end(), gap) != m_.gapsBeforeUser.end();
  if (!j.asTemplate) {
    const int64_t closing = b_.inputIds.at(r_, reply.end - 1), opening = b_.inputIds.at(r_, next);
    for (int64_t t = reply.end - 1; t <= next; ++t) j.seen += shown(b_.inputIds.at(r_, t));
    j.expected = shown(closing);
    for (int32_t id : m_.gapsBeforeUser.front()) j.expected += shown(id);
    j.expected += shown(opening);
    starts.push_back(next);
  }
  joins.push_back(std::move(j));
}

void RowMatcher::findContentEnd(Found& f, int64_t end) const {
  const std::vector<int32_t>& footer = f.mk->footer;
  int64_t firstFooter = -1;
  f.contentEnd = -1;
  for (int64_t u = f.contentBegin; u < end && f.contentEnd < 0; ++u) {
    if (prefixAt(u, end)) { // a new conversation: this message ends here, footer or not
      f.truncated = !footer.empty();
      f.contentEnd = f.end = u;
    } else if (footer.empty()) {
      if (headerAt(u, end)) f.contentEnd = f.end = u;
    } else if (matchAt(u, end, footer)) {
      if (firstFooter < 0) firstFooter = u;
      if (endsMessage(u + int64_t(footer.size()), end)) {
        f.contentEnd = u;
        f.end = u + int64_t(footer.size());
      }
    }
  }
  if (f.contentEnd < 0 && firstFooter >= 0) {
    f.contentEnd = firstFooter;
    f.end = firstFooter + int64_t(footer.size());
  }
  if (f.contentEnd < 0) {
    f.truncated = !footer.empty();
    f.contentEnd = f.end = end;
  }
}

std::vector<Found> RowMatcher::messages(const ExampleRange& ex, std::vector<int64_t>& starts,
                                        std::vector<ReplyJoin>& joins) const {
  std::vector<Found> out;
  bool separated = false; // a separator token since the last message
  for (int64_t t = ex.begin; t < ex.end;) {
    if (prefixAt(t, ex.end)) {
      if (!out.empty()) starts.push_back(t); // a conversation opens in mid-row
      separated = false;
      t += int64_t(m_.conversationPrefix.size());
      continue;
    }
    const RoleMarker* mk = headerAt(t, ex.end);
    if (!mk) {
      separated = separated || separatorAt(t);
      ++t;
      continue;
    }
    Found f;
    f.mk = mk;
    f.begin = t;
    f.contentBegin = t + int64_t(mk->header.size());
    // A header with nothing after it but the end, a new conversation or another header is a
    // generation prompt (Llama 3 writes one after every conversation), which only ends a conversation.
    if (f.contentBegin >= ex.end || prefixAt(f.contentBegin, ex.end) || headerAt(f.contentBegin, ex.end)) {
      separated = true;
      t = f.contentBegin;
      continue;
    }
    if (separated && !out.empty()) starts.push_back(t);
    if (mk->kind == PositionKind::User && !out.empty()) noteReplyJoin(out.back(), t, starts, joins);
    separated = false;
    findContentEnd(f, ex.end);
    out.push_back(f);
    t = std::max(f.end, t + 1);
  }
  return out;
}

// The template's signs inside one example besides its prefix: a system turn after other turns, and
// (templates that keep reasoning only in final replies) a user turn after a reply that has some.
// The starts found so far, sorted, are searched per message (a row can pack thousands of conversations:
// a scan of every start per message was quadratic in the row).
void conversationSigns(const RowMatcher& m, const RoleMarkers& markers, const std::vector<Found>& msgs,
                       std::vector<int64_t>& starts) {
  std::vector<int64_t> found = starts;
  std::sort(found.begin(), found.end());
  size_t first = 0; // the current conversation's first message
  for (size_t i = 1; i < msgs.size(); ++i) {
    const auto after = std::upper_bound(found.begin(), found.end(), msgs[i - 1].begin);
    const bool opened = after != found.end() && *after <= msgs[i].begin;
    bool starting = false;
    if (!opened && msgs[i].mk->kind == PositionKind::System) starting = true;
    if (!opened && !starting && markers.thinkOnlyInFinalReply && msgs[i].mk->kind == PositionKind::User &&
        m.textOf(msgs[i].contentBegin, msgs[i].contentEnd).rfind("<tool_response>", 0) != 0) // Qwen3's tool turns
      for (size_t j = i; j-- > first;)
        if (msgs[j].mk->kind == PositionKind::Assistant) {
          starting = m.textOf(msgs[j].contentBegin, msgs[j].contentEnd).find("</think>") != std::string::npos;
          break;
        }
    if (starting) starts.push_back(msgs[i].begin);
    if (opened || starting) first = i;
  }
}

// Collate's view of one conversation [begin, end) of the row: tokens from the ids, the messages found.
TokenizedConversation conversationOf(const RowMatcher& m, const Batch& b, int64_t r, const ExampleRange& ex,
                                     const std::vector<const Found*>& msgs, const Tokenizer& tok) {
  TokenizedConversation tc;
  std::vector<int64_t> byteAt;
  for (int64_t t = ex.begin; t < ex.end; ++t) {
    const int64_t id = b.inputIds.at(r, t);
    TokenInfo ti;
    ti.id = int32_t(std::clamp<int64_t>(id, INT32_MIN, INT32_MAX));
    ti.text = m.pieceOf(id);
    ti.special = id >= 0 && id < tok.vocabSize() && tok.isSpecial(int32_t(id));
    ti.span = {int64_t(tc.text.size()), int64_t(tc.text.size() + ti.text.size())};
    ti.scaffolding = true;
    byteAt.push_back(int64_t(tc.text.size()));
    tc.text += ti.text;
    tc.tokens.push_back(std::move(ti));
  }
  byteAt.push_back(int64_t(tc.text.size()));
  // Message bounds clamped to the conversation (a message found in the raw example never crosses a
  // conversation start, but the bytes of a position outside [begin, end] do not exist).
  auto byte = [&](int64_t t) { return byteAt[size_t(std::clamp(t, ex.begin, ex.end) - ex.begin)]; };
  int users = 0, turn = 0;
  for (size_t k = 0; k < msgs.size(); ++k) {
    const Found& f = *msgs[k];
    if (f.mk->kind == PositionKind::User && ++users > 1) ++turn;
    MessageSpan s;
    s.messageIndex = int(k);
    s.role = f.mk->role;
    s.turn = turn;
    s.block = {byte(f.begin), byte(k + 1 < msgs.size() ? msgs[k + 1]->begin : ex.end)};
    s.content = {byte(f.contentBegin), byte(f.contentEnd)};
    tc.messages.push_back(std::move(s));
  }
  assignTokensToMessages(tc);
  return tc;
}

// Everything recovery decides about one row before its meta is written.
struct RowRecovery {
  RowJoins joins;
  std::vector<Found> found;
  RowLayout layout; // the examples, conversation starts included
};

RowRecovery readRow(Batch& b, int64_t r, const RoleMarkers& markers, const Tokenizer& tok) {
  RowRecovery rr;
  const RowMatcher m(b, r, markers, tok);
  const RowLayout raw = rowLayout(b, r); // meta is still empty: padding and examples from the grids
  std::vector<int64_t> starts;
  RowJoins& rj = rr.joins;
  rj.templateMarksStart = !markers.conversationPrefix.empty();
  for (const ExampleRange& ex : raw.examples) {
    std::vector<int64_t> exStarts;
    std::vector<Found> msgs = m.messages(ex, exStarts, rj.joins);
    if (&ex == &raw.examples.front()) rj.opensMidMessage = m.opensMidMessage(ex, msgs);
    conversationSigns(m, markers, msgs, exStarts);
    starts.insert(starts.end(), exStarts.begin(), exStarts.end());
    rr.found.insert(rr.found.end(), msgs.begin(), msgs.end());
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::stable_sort(rr.found.begin(), rr.found.end(), [](const Found& x, const Found& y) { return x.begin < y.begin; });
  b.conversationStarts[size_t(r)] = starts;
  rr.layout = rowLayout(b, r); // split where the template's signs start a conversation
  rj.packed = rr.layout.packed();
  return rr;
}

void writeRowMeta(Batch& b, int64_t r, const RowRecovery& rr, const RoleMarkers& markers, const Tokenizer& tok) {
  const RowMatcher m(b, r, markers, tok);
  auto& meta = b.meta[size_t(r)];
  for (int64_t t = 0; t < b.length(); ++t) {
    PositionMeta& pm = meta[size_t(t)];
    pm.kind = rr.layout.pad[size_t(t)] ? PositionKind::Padding : PositionKind::Template;
    pm.scaffolding = true;
    const int64_t id = b.inputIds.at(r, t);
    pm.special = id >= 0 && id < tok.vocabSize() && tok.isSpecial(int32_t(id));
  }
  // rr.found is sorted by begin (readRow): each example's messages are found by a binary search, not a
  // scan of the row's messages per example (quadratic in a row of thousands of packed conversations).
  const auto beginsBefore = [](const Found& f, int64_t t) { return f.begin < t; };
  for (const ExampleRange& ex : rr.layout.examples) {
    std::vector<const Found*> msgs;
    for (auto f = std::lower_bound(rr.found.begin(), rr.found.end(), ex.begin, beginsBefore);
         f != rr.found.end() && f->begin < ex.end; ++f)
      msgs.push_back(&*f);
    TokenizedConversation tc = conversationOf(m, b, r, ex, msgs, tok);
    markThinkSpans(tc);
    markRecoveredReplies(tc, markers.eosText);
    const std::vector<PositionMeta> em = positionMetaOf(tc);
    for (size_t i = 0; i < em.size(); ++i) {
      PositionMeta& pm = meta[size_t(ex.begin) + i];
      if (pm.kind == PositionKind::Padding) continue;
      pm = em[i];
    }
    for (const Found* f : msgs)
      if (f->truncated && f->mk->kind == PositionKind::Assistant)
        for (int64_t t = f->contentBegin; t < std::min(f->end, ex.end); ++t)
          if (meta[size_t(t)].reply) meta[size_t(t)].replyTruncated = true;
  }
}

} // namespace

long recoverRoles(Batch& b, const RoleMarkers& markers, const Tokenizer& tok, std::vector<RowJoins>* joins) {
  const int64_t B = b.batchSize(), T = b.length();
  b.meta.clear();
  b.rolesRecovered = false;
  b.turnJoins = markers.turnJoins;
  b.conversationStarts.assign(size_t(B), {});
  std::vector<RowRecovery> rows;
  rows.reserve(size_t(B));
  long found = 0;
  for (int64_t r = 0; r < B; ++r) {
    rows.push_back(readRow(b, r, markers, tok));
    found += long(rows.back().found.size());
  }
  b.meta.assign(size_t(B), std::vector<PositionMeta>(size_t(T)));
  b.rolesRecovered = true;
  for (int64_t r = 0; r < B; ++r) writeRowMeta(b, r, rows[size_t(r)], markers, tok);
  if (joins) {
    joins->clear();
    for (RowRecovery& rr : rows) joins->push_back(std::move(rr.joins));
  }
  return found;
}

} // namespace maskscope
