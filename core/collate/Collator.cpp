// The collator. Every mask decision is made here once, per example (prepare), then padding and
// packing only move examples into rows (assemble); nothing downstream re-derives what a position is.
//
// Conventions of the batch it builds (all [B, T]):
//   labels          HF: the id expected at this position (the model shifts), -100 = ignored.
//   attention_mask  1 real / 0 pad; block_diagonal packing writes segment ids 1, 2, 3, ...
//   position_ids    what the model would use: arange for unpacked right padding (pads continue),
//                   cumsum(mask) - 1 with pads = 1 for left padding (as transformers' generate),
//                   restarting at 0 per example for reset/block_diagonal/padding_free packing
//                   (pads 0, as TRL and axolotl pad position_ids), continuing for naive packing.
#include "core/collate/Collator.h"
#include "core/tokenizer/DefaultPad.h"
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

std::vector<PositionMeta> positionMetaOf(const TokenizedConversation& row) {
  const size_t n = row.tokens.size();
  std::vector<PositionMeta> meta;
  meta.reserve(n + 2);
  for (const TokenInfo& t : row.tokens) {
    PositionMeta m;
    m.kind = t.messageIndex < 0 ? PositionKind::Template
             : t.image          ? PositionKind::Image
             : t.think          ? PositionKind::Think
             : t.toolCall       ? PositionKind::ToolCall
                                : kindOfRole(t.role);
    m.messageIndex = t.messageIndex;
    m.turn = t.turn;
    m.special = t.special;
    m.scaffolding = t.scaffolding;
    m.toolName = t.toolName;
    m.reply = t.inGeneration;
    meta.push_back(m);
  }
  // The closing token of each reply: the last special token of each run of reply positions.
  for (size_t i = 0; i < n;) {
    if (!meta[i].reply) {
      ++i;
      continue;
    }
    size_t j = i;
    int lastSpecial = -1;
    while (j < n && meta[j].reply) {
      if (meta[j].special) lastSpecial = int(j);
      ++j;
    }
    if (lastSpecial >= 0) meta[size_t(lastSpecial)].closesReply = true;
    i = j;
  }
  return meta;
}

Collator::Collator(CollatorSpec spec, const Tokenizer& tokenizer, const SpecialTokenIds& sp) : spec_(std::move(spec)) {
  if (sp.eos) eosId_ = *sp.eos;
  if (sp.bos) bosId_ = *sp.bos;
  const std::string& p = spec_.padToken;
  if (p.empty()) {
    padId_ = defaultPad(sp).id.value_or(0); // no pad and no EOS: id 0, reported by pad-token-missing
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
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), padId_);
    if (ec != std::errc() || end != p.data() + p.size() || padId_ >= tokenizer.vocabSize())
      throw Error("collator pad_token id " + p + " is outside the vocabulary (size " +
                  std::to_string(tokenizer.vocabSize()) + ")");
  } else {
    auto id = tokenizer.tokenToId(p);
    if (!id) throw Error("collator pad_token \"" + p + "\" is not in the tokenizer's vocabulary");
    padId_ = *id;
  }
  // What add_special_tokens=True wraps a text in: compare "a" encoded with and without.
  if (spec_.addBos) {
    EncodeOptions with, without;
    with.addSpecialTokens = true;
    Encoding a = tokenizer.encode("a", with), b = tokenizer.encode("a", without);
    auto at = std::search(a.ids.begin(), a.ids.end(), b.ids.begin(), b.ids.end());
    if (!b.ids.empty() && at != a.ids.end()) {
      addedPrefix_.assign(a.ids.begin(), at);
      addedSuffix_.assign(at + long(b.ids.size()), a.ids.end());
    } else if (bosId_) {
      addedPrefix_ = {*bosId_};
    }
  }
}

bool Collator::copiesIds() const {
  return spec_.labels == LabelMode::All || spec_.labels == LabelMode::PadMasked || spec_.labels == LabelMode::MaskPadId;
}

// add_bos: what the tokenizer's post-processor adds on top of the template's own BOS.
void Collator::addPostProcessorTokens(CollatedExample& ex) const {
  if (spec_.addBos && (!addedPrefix_.empty() || !addedSuffix_.empty())) {
    auto added = [] {
      PositionMeta m;
      m.kind = PositionKind::Template;
      m.special = true;
      m.scaffolding = true;
      return m;
    };
    const uint8_t g = spec_.labels == LabelMode::All || spec_.labels == LabelMode::PadMasked;
    for (auto it = addedPrefix_.rbegin(); it != addedPrefix_.rend(); ++it) {
      ex.ids.insert(ex.ids.begin(), *it);
      ex.meta.insert(ex.meta.begin(), added());
      ex.graded.insert(ex.graded.begin(), uint8_t(g || (spec_.labels == LabelMode::MaskPadId && *it != padId_)));
    }
    for (int64_t id : addedSuffix_) {
      ex.ids.push_back(id);
      ex.meta.push_back(added());
      ex.graded.push_back(uint8_t(g || (spec_.labels == LabelMode::MaskPadId && id != padId_)));
    }
  }
}

// Truncation (TRL truncation_mode keep_start / keep_end; tokenizer truncation_side right / left).
void Collator::truncate(CollatedExample& ex) const {
  const size_t maxLen = size_t(spec_.maxLength);
  if (spec_.truncation != Truncation::None && ex.ids.size() > maxLen) {
    ex.truncated = true;
    const size_t from = spec_.truncation == Truncation::KeepStart ? 0 : ex.ids.size() - maxLen;
    const size_t to = from + maxLen;
    // A reply run that extends past the kept end lost its end (its closing token, when it has one).
    std::vector<uint8_t> cutRun(ex.ids.size(), 0);
    for (size_t i = 0; i < ex.ids.size();) {
      if (!ex.meta[i].reply) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < ex.ids.size() && ex.meta[j].reply) ++j;
      if (j > to) {
        ++ex.repliesCut;
        std::fill(cutRun.begin() + long(i), cutRun.begin() + long(j), 1);
      }
      i = j;
    }
    auto cut = [&](auto& v) { v = std::vector(v.begin() + long(from), v.begin() + long(to)); };
    cut(ex.ids);
    cut(ex.graded);
    cut(ex.meta);
    cut(cutRun);
    for (size_t i = 0; i < ex.meta.size(); ++i)
      if (cutRun[i]) ex.meta[i].replyTruncated = true;
  }
}

CollatedExample Collator::prepare(const TokenizedConversation& row) const {
  CollatedExample ex;
  ex.sourceRow = row.rowIndex;
  const size_t n = row.tokens.size();
  ex.ids.reserve(n + 2);
  ex.graded.assign(n, 0);

  int lastAssistant = -1;
  for (const MessageSpan& m : row.messages)
    if (kindOfRole(m.role) == PositionKind::Assistant) lastAssistant = std::max(lastAssistant, m.messageIndex);

  for (const TokenInfo& t : row.tokens) ex.ids.push_back(t.id);
  ex.meta = positionMetaOf(row);

  switch (spec_.labels) {
  case LabelMode::All:
  case LabelMode::PadMasked:
    std::fill(ex.graded.begin(), ex.graded.end(), 1);
    break;
  case LabelMode::MaskPadId: // DataCollatorForLanguageModeling: labels[labels == pad_token_id] = -100
    for (size_t i = 0; i < n; ++i) ex.graded[i] = ex.ids[i] != padId_;
    break;
  case LabelMode::AssistantOnly:
    for (size_t i = 0; i < n; ++i) ex.graded[i] = ex.meta[i].reply;
    break;
  case LabelMode::LastTurn:
    for (size_t i = 0; i < n; ++i) ex.graded[i] = ex.meta[i].reply && ex.meta[i].messageIndex == lastAssistant;
    break;
  case LabelMode::CompletionOnly: {
    // TRL completion_mask: everything after the prompt (which ends with the generation prompt).
    // Rows without a prompt/completion split: the final assistant message is the completion.
    size_t from = n;
    if (row.completionStart >= 0) {
      from = size_t(row.completionStart);
    } else {
      for (size_t i = 0; i < n; ++i)
        if (ex.meta[i].reply && ex.meta[i].messageIndex == lastAssistant) {
          from = i;
          break;
        }
    }
    for (size_t i = from; i < n; ++i) ex.graded[i] = 1;
    break;
  }
  }
  if (!spec_.gradeClosingToken && !copiesIds()) {
    // Without the closing token: ungrade it and whatever of its message follows it.
    for (size_t i = 0; i < n; ++i) {
      if (!ex.meta[i].closesReply) continue;
      for (size_t j = i; j < n && ex.meta[j].messageIndex == ex.meta[i].messageIndex; ++j) ex.graded[j] = 0;
    }
  }
  // Image blocks are -100 under every mode that selects what to grade (the model never writes image
  // tokens); the modes that copy input_ids (hf-lm) keep them, as DataCollatorForLanguageModeling does.
  if (!copiesIds())
    for (size_t i = 0; i < n; ++i)
      if (ex.meta[i].kind == PositionKind::Image) ex.graded[i] = 0;
  // think=masked: the reasoning span is -100 whatever the labels mode gave it.
  if (!spec_.gradeThink)
    for (size_t i = 0; i < n; ++i)
      if (ex.meta[i].kind == PositionKind::Think) ex.graded[i] = 0;
  addPostProcessorTokens(ex);
  truncate(ex);
  return ex;
}

Batch Collator::collate(const std::vector<TokenizedConversation>& rows) const {
  std::vector<CollatedExample> examples;
  examples.reserve(rows.size());
  for (const auto& r : rows) examples.push_back(prepare(r));
  return collatePrepared(examples);
}

Batch Collator::collatePrepared(const std::vector<CollatedExample>& input) const {
  // Separators are appended to copies so prepare()'s results stay reusable.
  std::vector<CollatedExample> withSeparators;
  const std::vector<CollatedExample>* examples = &input;
  if (spec_.packingSeparator && spec_.packing != Packing::None && eosId_) {
    withSeparators = input;
    for (auto& ex : withSeparators) {
      PositionMeta m;
      m.kind = PositionKind::Separator;
      m.special = true;
      m.scaffolding = true;
      ex.ids.push_back(*eosId_);
      ex.meta.push_back(m);
      // Old TRL ConstantLengthDataset: labels = input_ids, separator included.
      ex.graded.push_back(spec_.labels == LabelMode::All || spec_.labels == LabelMode::PadMasked ||
                          (spec_.labels == LabelMode::MaskPadId && *eosId_ != padId_));
    }
    examples = &withSeparators;
  }
  std::vector<std::vector<const CollatedExample*>> layout;
  if (spec_.packing == Packing::None) {
    for (const auto& ex : *examples) layout.push_back({&ex});
  } else if (spec_.packing == Packing::PaddingFree) {
    layout.emplace_back();
    for (const auto& ex : *examples) layout.back().push_back(&ex);
  } else {
    // Greedy, in dataset order: a new row starts when the next example would overflow max_length.
    size_t used = 0;
    for (const auto& ex : *examples) {
      if (layout.empty() || (used > 0 && used + ex.ids.size() > size_t(spec_.maxLength))) {
        layout.emplace_back();
        used = 0;
      }
      layout.back().push_back(&ex);
      used += ex.ids.size();
    }
  }
  return assemble(layout);
}

Batch Collator::assemble(const std::vector<std::vector<const CollatedExample*>>& layout) const {
  Batch b;
  b.padTokenId = padId_;
  b.eosTokenId = eosId_;
  b.bosTokenId = bosId_;
  b.origin = "collated by " + spec_.name;
  const bool packed = spec_.packing != Packing::None;
  const bool resets = spec_.packing == Packing::ResetPositions || spec_.packing == Packing::BlockDiagonal ||
                      spec_.packing == Packing::PaddingFree;
  const bool segmentIds = spec_.packing == Packing::BlockDiagonal && spec_.attention == AttentionMode::Correct;
  const int64_t B = int64_t(layout.size());
  int64_t longest = 0;
  std::vector<int64_t> lengths;
  lengths.reserve(layout.size());
  for (const auto& row : layout) {
    int64_t len = 0;
    for (const auto* ex : row) len += int64_t(ex->ids.size());
    lengths.push_back(len);
    longest = std::max(longest, len);
  }
  int64_t T = longest;
  if (spec_.padTo == PadTo::MaxLength)
    T = std::max<int64_t>(longest, spec_.maxLength);
  else if (spec_.padTo == PadTo::MultipleOf)
    T = (longest + spec_.multipleOf - 1) / spec_.multipleOf * spec_.multipleOf;

  // Four int64 grids plus per-position meta: refuse sizes that only a typo asks for.
  constexpr int64_t kMaxCells = int64_t(1) << 25;
  if (B > 0 && T > kMaxCells / B)
    throw Error("the batch would be " + std::to_string(B) + " x " + std::to_string(T) + " positions (limit " +
                std::to_string(kMaxCells) + "); lower max_length or select fewer rows");
  b.inputIds = IntGrid(B, T, padId_);
  b.attentionMask = IntGrid(B, T, spec_.attention == AttentionMode::AllOnes ? 1 : 0);
  b.labels = IntGrid(B, T, spec_.labels == LabelMode::All ? padId_ : kIgnoreIndex); // pads: graded only for "all"
  b.positionIds = IntGrid(B, T, 0);
  b.segments.resize(size_t(B));
  PositionMeta padMeta;
  padMeta.kind = PositionKind::Padding;
  b.meta.assign(size_t(B), std::vector<PositionMeta>(size_t(T), padMeta));
  b.sourceRows.reserve(size_t(B));
  for (int64_t r = 0; r < B; ++r) {
    const int64_t len = lengths[size_t(r)];
    const int64_t start = spec_.paddingSide == PaddingSide::Left ? T - len : 0;
    int64_t pos = start;
    int64_t segment = 0;
    for (const CollatedExample* ex : layout[size_t(r)]) {
      ++segment;
      if (packed) b.segments[size_t(r)].push_back({pos, pos + int64_t(ex->ids.size()), ex->sourceRow});
      for (size_t i = 0; i < ex->ids.size(); ++i, ++pos) {
        b.inputIds.at(r, pos) = ex->ids[i];
        b.meta[size_t(r)][size_t(pos)] = ex->meta[i];
        bool graded = ex->graded[i] != 0;
        // DataCollatorWithFlattening / TRL padding_free: labels[position_ids == 0] = -100.
        if (spec_.packing == Packing::PaddingFree && i == 0) graded = false;
        b.labels.at(r, pos) = graded ? ex->ids[i] : kIgnoreIndex;
        b.attentionMask.at(r, pos) = segmentIds ? segment : 1;
        b.positionIds.at(r, pos) = resets ? int64_t(i) : pos - start;
      }
    }
    b.sourceRows.push_back(layout[size_t(r)].empty() ? -1 : layout[size_t(r)].front()->sourceRow);
    // Position ids of the pads.
    if (spec_.positionIds == PositionMode::Arange) {
      for (int64_t t = 0; t < T; ++t) b.positionIds.at(r, t) = t;
    } else if (resets) {
      // pads keep 0 (TRL pads position_ids with 0; axolotl likewise)
    } else if (spec_.paddingSide == PaddingSide::Left) {
      for (int64_t t = 0; t < start; ++t) b.positionIds.at(r, t) = 1; // cumsum(mask) - 1, masked_fill(mask == 0, 1)
    } else {
      for (int64_t t = start + len; t < T; ++t) b.positionIds.at(r, t) = t - start; // arange continues
    }
  }
  // DataCollatorWithFlattening / TRL padding_free return no attention_mask (attentionMask stays all ones
  // for the views): transformers masks such a batch by position_ids (core/mask/EffectiveAttention.h).
  b.attentionMaskGiven = spec_.packing != Packing::PaddingFree;
  return b;
}

} // namespace maskscope
