// The collator. Every mask decision is made here once, per example, then padding and packing
// only move examples into rows; nothing downstream re-derives what a position is.
#include "core/collate/Collator.h"
#include "core/util/Error.h"

#include <algorithm>
#include <charconv>

namespace maskscope {

PositionKind kindOfRole(const std::string& role) {
  if (role == "system" || role == "developer") return PositionKind::System;
  if (role == "user" || role == "human") return PositionKind::User;
  if (role == "assistant" || role == "model" || role == "gpt") return PositionKind::Assistant;
  if (role == "tool" || role == "ipython" || role == "function") return PositionKind::Tool;
  return role.empty() ? PositionKind::Template : PositionKind::Unknown;
}

Collator::Collator(CollatorSpec spec, const Tokenizer& tokenizer) : spec_(std::move(spec)) {
  SpecialTokenIds sp = tokenizer.specialTokens();
  if (sp.eos) eosId_ = *sp.eos;
  if (sp.bos) bosId_ = *sp.bos;
  const std::string& p = spec_.padToken;
  if (p.empty()) {
    if (sp.pad) padId_ = *sp.pad;
    else if (sp.eos) { padId_ = *sp.eos; padFellBackToEos_ = true; }
    else padId_ = 0;
  } else if (p == "eos" || p == "eos_token") {
    if (!sp.eos) throw Error("collator pad_token=eos, but the tokenizer has no EOS token");
    padId_ = *sp.eos;
  } else if (p == "bos" || p == "bos_token") {
    if (!sp.bos) throw Error("collator pad_token=bos, but the tokenizer has no BOS token");
    padId_ = *sp.bos;
  } else if (p == "unk" || p == "unk_token") {
    if (!sp.unk) throw Error("collator pad_token=unk, but the tokenizer has no UNK token");
    padId_ = *sp.unk;
  } else if (std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    std::from_chars(p.data(), p.data() + p.size(), padId_);
    if (padId_ >= tokenizer.vocabSize()) throw Error("collator pad_token id " + p + " is outside the vocabulary");
  } else {
    auto id = tokenizer.tokenToId(p);
    if (!id) throw Error("collator pad_token \"" + p + "\" is not in the tokenizer's vocabulary");
    padId_ = *id;
  }
}

CollatedExample Collator::prepare(const TokenizedConversation& row) const {
  CollatedExample ex;
  ex.sourceRow = row.rowIndex;
  const size_t n = row.tokens.size();
  ex.ids.reserve(n + 1);
  ex.meta.reserve(n + 1);
  ex.graded.assign(n, 0);

  int lastAssistant = -1;
  for (const MessageSpan& m : row.messages)
    if (m.role == "assistant") lastAssistant = std::max(lastAssistant, m.messageIndex);

  for (size_t i = 0; i < n; ++i) {
    const TokenInfo& t = row.tokens[i];
    ex.ids.push_back(t.id);
    PositionMeta m;
    m.kind = t.messageIndex < 0 ? PositionKind::Template : kindOfRole(t.role);
    m.messageIndex = t.messageIndex;
    m.turn = t.turn;
    m.special = t.special;
    m.scaffolding = t.scaffolding;
    m.reply = t.inGeneration;
    ex.meta.push_back(m);
  }
  // The closing token of each reply: the last special token of each run of reply positions.
  for (size_t i = 0; i < n;) {
    if (!ex.meta[i].reply) { ++i; continue; }
    size_t j = i;
    int lastSpecial = -1;
    while (j < n && ex.meta[j].reply) { if (ex.meta[j].special) lastSpecial = int(j); ++j; }
    if (lastSpecial >= 0) ex.meta[size_t(lastSpecial)].closesReply = true;
    i = j;
  }

  auto gradeReplies = [&](bool lastOnly) {
    for (size_t i = 0; i < n; ++i) {
      if (!ex.meta[i].reply) continue;
      if (lastOnly && ex.meta[i].messageIndex != lastAssistant) continue;
      ex.graded[i] = 1;
    }
  };
  switch (spec_.labels) {
  case LabelMode::All:
  case LabelMode::PadMasked:
    std::fill(ex.graded.begin(), ex.graded.end(), 1);
    break;
  case LabelMode::MaskPadId:
    for (size_t i = 0; i < n; ++i) ex.graded[i] = ex.ids[i] != padId_;
    break;
  case LabelMode::AssistantOnly:
    gradeReplies(false);
    break;
  case LabelMode::LastTurn:
    gradeReplies(true);
    break;
  case LabelMode::CompletionOnly:
    if (row.completionStart >= 0) {
      for (size_t i = size_t(row.completionStart); i < n; ++i) ex.graded[i] = 1;
    } else {
      gradeReplies(true); // messages rows: the completion is the final reply
    }
    break;
  }
  if (!spec_.gradeClosingToken && spec_.labels != LabelMode::All && spec_.labels != LabelMode::PadMasked &&
      spec_.labels != LabelMode::MaskPadId) {
    // Without the closing token: ungrade it and whatever of its message follows it.
    for (size_t i = 0; i < n; ++i) {
      if (!ex.meta[i].closesReply) continue;
      for (size_t j = i; j < n && ex.meta[j].messageIndex == ex.meta[i].messageIndex; ++j) ex.graded[j] = 0;
    }
  }
  if (spec_.addBos && bosId_) {
    PositionMeta m;
    m.kind = PositionKind::Template;
    m.special = true;
    m.scaffolding = true;
    ex.ids.insert(ex.ids.begin(), *bosId_);
    ex.meta.insert(ex.meta.begin(), m);
    ex.graded.insert(ex.graded.begin(), spec_.labels == LabelMode::All || spec_.labels == LabelMode::PadMasked ||
                                            (spec_.labels == LabelMode::MaskPadId && *bosId_ != padId_));
  }
  // Truncation.
  const size_t maxLen = size_t(spec_.maxLength);
  if (spec_.truncation != Truncation::None && ex.ids.size() > maxLen) {
    ex.truncated = true;
    size_t from = spec_.truncation == Truncation::KeepStart ? 0 : ex.ids.size() - maxLen;
    auto cut = [&](auto& v) { v = std::vector(v.begin() + long(from), v.begin() + long(from + maxLen)); };
    // Replies that lose their closing token are marked before the cut.
    std::vector<int> replyMessagesClosed;
    for (size_t i = from; i < from + maxLen; ++i)
      if (ex.meta[i].closesReply) replyMessagesClosed.push_back(ex.meta[i].messageIndex);
    cut(ex.ids);
    cut(ex.graded);
    cut(ex.meta);
    for (PositionMeta& m : ex.meta)
      if (m.reply && std::find(replyMessagesClosed.begin(), replyMessagesClosed.end(), m.messageIndex) ==
                         replyMessagesClosed.end())
        m.replyTruncated = true;
  }
  return ex;
}

Batch Collator::collate(const std::vector<TokenizedConversation>& rows) const {
  std::vector<CollatedExample> examples;
  examples.reserve(rows.size());
  for (const auto& r : rows) examples.push_back(prepare(r));
  if (spec_.packingSeparator && spec_.packing != Packing::None && eosId_) {
    for (auto& ex : examples) {
      PositionMeta m;
      m.kind = PositionKind::Separator;
      m.special = true;
      m.scaffolding = true;
      ex.ids.push_back(*eosId_);
      ex.meta.push_back(m);
      ex.graded.push_back(spec_.labels == LabelMode::All || spec_.labels == LabelMode::PadMasked);
    }
  }
  std::vector<std::vector<const CollatedExample*>> layout;
  if (spec_.packing == Packing::None) {
    for (const auto& ex : examples) layout.push_back({&ex});
  } else if (spec_.packing == Packing::PaddingFree) {
    layout.emplace_back();
    for (const auto& ex : examples) layout.back().push_back(&ex);
  } else {
    // Greedy, in dataset order: a new row starts when the next example would overflow max_length.
    size_t used = 0;
    for (const auto& ex : examples) {
      if (layout.empty() || (used > 0 && used + ex.ids.size() > size_t(spec_.maxLength))) {
        layout.emplace_back();
        used = 0;
      }
      layout.back().push_back(&ex);
      used += ex.ids.size();
    }
  }
  return assemble(std::move(layout), examples);
}

Batch Collator::assemble(std::vector<std::vector<const CollatedExample*>> layout,
                         const std::vector<CollatedExample>& all) const {
  (void)all;
  Batch b;
  b.padTokenId = padId_;
  b.eosTokenId = eosId_;
  b.bosTokenId = bosId_;
  b.origin = "collated by " + spec_.name;
  const bool packed = spec_.packing != Packing::None;
  const int64_t B = int64_t(layout.size());
  int64_t longest = 0;
  std::vector<int64_t> lengths;
  for (const auto& row : layout) {
    int64_t len = 0;
    for (const auto* ex : row) len += int64_t(ex->ids.size());
    lengths.push_back(len);
    longest = std::max(longest, len);
  }
  int64_t T = longest;
  if (spec_.packing != Packing::PaddingFree) {
    if (spec_.padTo == PadTo::MaxLength) T = std::max<int64_t>(longest, spec_.maxLength);
    else if (spec_.padTo == PadTo::MultipleOf)
      T = (longest + spec_.multipleOf - 1) / spec_.multipleOf * spec_.multipleOf;
  }
  b.inputIds = IntGrid(B, T, padId_);
  b.attentionMask = IntGrid(B, T, 0);
  b.labels = IntGrid(B, T, kIgnoreIndex);
  b.positionIds = IntGrid(B, T, 0);
  b.segments.resize(size_t(B));
  b.meta.assign(size_t(B), std::vector<PositionMeta>(size_t(T)));
  for (int64_t r = 0; r < B; ++r) {
    const int64_t len = lengths[size_t(r)];
    const int64_t start = spec_.paddingSide == PaddingSide::Left ? T - len : 0;
    int64_t pos = start;
    int segment = 0;
    for (const CollatedExample* ex : layout[size_t(r)]) {
      ++segment;
      if (packed) b.segments[size_t(r)].push_back({pos, pos + int64_t(ex->ids.size()), ex->sourceRow});
      for (size_t i = 0; i < ex->ids.size(); ++i, ++pos) {
        b.inputIds.at(r, pos) = ex->ids[i];
        b.meta[size_t(r)][size_t(pos)] = ex->meta[i];
        bool graded = ex->graded[i] != 0;
        if (spec_.packing == Packing::PaddingFree && i == 0) graded = false; // as DataCollatorWithFlattening
        b.labels.at(r, pos) = graded ? ex->ids[i] : kIgnoreIndex;
        b.attentionMask.at(r, pos) = spec_.packing == Packing::BlockDiagonal && spec_.attention == AttentionMode::Correct ? segment : 1;
        const bool reset = spec_.packing == Packing::ResetPositions || spec_.packing == Packing::BlockDiagonal ||
                           spec_.packing == Packing::PaddingFree;
        b.positionIds.at(r, pos) = reset ? int64_t(i) : pos - start;
      }
    }
    b.sourceRows.push_back(layout[size_t(r)].empty() ? -1 : layout[size_t(r)].front()->sourceRow);
    if (!packed) b.segments[size_t(r)].clear();
    // Padding positions.
    for (int64_t t = 0; t < T; ++t) {
      const bool isPad = t < start || t >= start + len;
      if (!isPad) continue;
      PositionMeta& m = b.meta[size_t(r)][size_t(t)];
      m.kind = PositionKind::Padding;
      if (spec_.attention == AttentionMode::AllOnes) b.attentionMask.at(r, t) = 1;
      bool gradedPad = spec_.labels == LabelMode::All;
      b.labels.at(r, t) = gradedPad ? padId_ : kIgnoreIndex;
    }
    // Position ids: right padding continues the count into the pads (what a model derives from
    // arange); left padding skips the pads as transformers does (cumsum(mask) - 1, pads = 1).
    if (spec_.positionIds == PositionMode::Arange) {
      for (int64_t t = 0; t < T; ++t) b.positionIds.at(r, t) = t;
    } else if (spec_.paddingSide == PaddingSide::Left) {
      for (int64_t t = 0; t < start; ++t) b.positionIds.at(r, t) = 1;
    } else {
      int64_t next = len > 0 ? b.positionIds.at(r, len - 1) + 1 : 0;
      for (int64_t t = start + len; t < T; ++t) b.positionIds.at(r, t) = next++;
    }
  }
  return b;
}

} // namespace maskscope
