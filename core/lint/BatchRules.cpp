// Batch rules. Conventions (transformers): labels[b][t] is the id to predict at position t's input
// (the model shifts), -100 = ignored; attention_mask 0 = padding key, 1 = attend, or segment ids
// 1, 2, ... for packed rows; position_ids empty = the model derives arange(T).
#include "core/lint/BatchRules.h"
#include "core/lint/RowLayout.h"
#include "core/mask/AttentionGrid.h"

#include <algorithm>
#include <map>
#include <set>

namespace maskscope {

namespace {

std::string num(int64_t v) { return std::to_string(v); }

std::string shapeText(const IntGrid& g) { return "[" + num(g.rows) + ", " + num(g.cols) + "]"; }

// Where a finding points: the batch row/position for dumps, the dataset row and the position in
// that example for collated datasets.
struct Where {
  int64_t row;
  std::optional<int64_t> position;
};

class RowContext {
public:
  RowContext(const Batch& b, int64_t r, const RowLayout& L, bool dataset) : b_(b), r_(r), L_(L), dataset_(dataset) {}
  Where at(int64_t t) const {
    if (!dataset_) return {r_, t};
    const ExampleRange* ex = nullptr;
    for (const ExampleRange& e : L_.examples) {
      if (t >= e.begin && t < e.end) {
        ex = &e;
        break;
      }
      if (t >= e.begin) ex = &e;
    }
    if (!ex && !L_.examples.empty()) ex = &L_.examples.front();
    if (!ex) return {rowSource(), std::nullopt};
    int64_t src = ex->sourceRow >= 0 ? ex->sourceRow : rowSource();
    int64_t rel = t - ex->begin;
    return {src, rel >= 0 ? std::optional<int64_t>(rel) : std::nullopt};
  }
  int64_t rowSource() const {
    if (!dataset_) return r_;
    return size_t(r_) < b_.sourceRows.size() && b_.sourceRows[size_t(r_)] >= 0 ? b_.sourceRows[size_t(r_)] : r_;
  }
  std::string label(int64_t t) const { return "row " + num(at(t).row); }

private:
  const Batch& b_;
  int64_t r_;
  const RowLayout& L_;
  bool dataset_;
};

void emit(FindingCollector& out, const char* rule, const Where& w, std::string message,
          std::optional<Severity> severity = std::nullopt) {
  out.add(rule, w.row, w.position, std::move(message), severity);
}

bool isPromptKind(PositionKind k) {
  return k == PositionKind::System || k == PositionKind::User || k == PositionKind::Tool ||
         k == PositionKind::Template || k == PositionKind::Assistant || k == PositionKind::Unknown;
}

} // namespace

bool runBatchRules(const Batch& b, const BatchRuleOptions& o, FindingCollector& out, LintSummary& summary,
                   long* fullSequenceRows) {
  const int64_t B = b.inputIds.rows, T = b.inputIds.cols;
  // ---- shape-mismatch ---------------------------------------------------------------------
  {
    std::string bad;
    if (!b.labels.sameShape(b.inputIds)) bad += " labels " + shapeText(b.labels);
    if (!b.attentionMask.empty() && !b.attentionMask.sameShape(b.inputIds))
      bad += " attention_mask " + shapeText(b.attentionMask);
    if (!b.positionIds.empty() && !b.positionIds.sameShape(b.inputIds))
      bad += " position_ids " + shapeText(b.positionIds);
    if (!bad.empty()) {
      out.add("shape-mismatch", std::nullopt, std::nullopt, "input_ids is " + shapeText(b.inputIds) + " but" + bad);
      return false;
    }
    if (b.inputIds.values.size() != size_t(B * T) || b.labels.values.size() != size_t(B * T)) {
      out.add("shape-mismatch", std::nullopt, std::nullopt, "a grid's storage does not match its shape");
      return false;
    }
  }
  const bool haveMask = b.attentionMask.sameShape(b.inputIds);
  const bool havePos = b.positionIds.sameShape(b.inputIds);
  const std::optional<int64_t> padId = b.padTokenId;

  // Vocabulary bound for labels: the tokenizer's size, else the largest input id.
  int64_t maxInput = -1;
  for (int64_t v : b.inputIds.values) maxInput = std::max(maxInput, v);
  int64_t batchGraded = 0;

  for (int64_t r = 0; r < B; ++r) {
    const RowLayout L = rowLayout(b, r, padId);
    const bool dataset = o.datasetPositions;
    RowContext ctx(b, r, L, dataset);
    const std::vector<PositionMeta>* meta =
        o.rolesKnown && size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T ? &b.meta[size_t(r)]
                                                                                            : nullptr;
    auto graded = [&](int64_t t) { return b.labels.at(r, t) != kIgnoreIndex; };

    // ---- attention-mask-not-binary --------------------------------------------------------
    if (haveMask) {
      int64_t negAt = -1, splitAt = -1;
      for (int64_t t = 0; t < T && negAt < 0; ++t)
        if (b.attentionMask.at(r, t) < 0) negAt = t;
      // Segment ids (some value above 1): a non-zero id that reappears after a different id.
      if (splitAt < 0) {
        std::set<int64_t> seen;
        int64_t last = 0;
        bool anyAbove1 = false;
        for (int64_t t = 0; t < T; ++t) anyAbove1 = anyAbove1 || b.attentionMask.at(r, t) > 1;
        if (anyAbove1)
          for (int64_t t = 0; t < T; ++t) {
            int64_t v = b.attentionMask.at(r, t);
            if (v != last && v > 0) {
              if (seen.count(v) && splitAt < 0) splitAt = t;
              seen.insert(v);
            }
            last = v;
          }
      }
      if (negAt >= 0)
        emit(out, "attention-mask-not-binary", ctx.at(negAt),
             ctx.label(negAt) + ": attention_mask is " + num(b.attentionMask.at(r, negAt)) + " at position " +
                 num(negAt));
      else if (splitAt >= 0)
        emit(out, "attention-mask-not-binary", ctx.at(splitAt),
             ctx.label(splitAt) + ": segment id " + num(b.attentionMask.at(r, splitAt)) + " at position " +
                 num(splitAt) + " continues a segment that already ended (segment ids must be contiguous runs)");
    }

    // ---- ids and labels in range -----------------------------------------------------------
    {
      int64_t badLabelAt = -1, badLabels = 0, badInputAt = -1, badInputs = 0;
      const int64_t bound = o.vocabSize ? *o.vocabSize : maxInput + 1;
      for (int64_t t = 0; t < T; ++t) {
        int64_t l = b.labels.at(r, t);
        if (l != kIgnoreIndex && (l < 0 || l >= bound)) {
          ++badLabels;
          if (badLabelAt < 0) badLabelAt = t;
        }
        int64_t id = b.inputIds.at(r, t);
        if (o.vocabSize && (id < 0 || id >= *o.vocabSize)) {
          ++badInputs;
          if (badInputAt < 0) badInputAt = t;
        } else if (!o.vocabSize && id < 0) {
          ++badInputs;
          if (badInputAt < 0) badInputAt = t;
        }
      }
      if (badLabels > 0) {
        std::string why = o.vocabSize ? "vocabulary size " + num(*o.vocabSize)
                                      : "no tokenizer given; the largest input id is " + num(maxInput);
        emit(out, "label-out-of-range", ctx.at(badLabelAt),
             ctx.label(badLabelAt) + ": " + num(badLabels) + " label(s) are neither -100 nor a token id, first " +
                 num(b.labels.at(r, badLabelAt)) + " at position " + num(badLabelAt) + " (" + why + ")");
      }
      if (badInputs > 0)
        emit(out, "input-id-out-of-range", ctx.at(badInputAt),
             ctx.label(badInputAt) + ": " + num(badInputs) + " input id(s) outside the vocabulary, first " +
                 num(b.inputIds.at(r, badInputAt)) + " at position " + num(badInputAt) +
                 (o.vocabSize ? " (vocabulary size " + num(*o.vocabSize) + ")" : std::string()));
    }

    // ---- padding: pad-graded, pad-attended ----------------------------------------------------
    int64_t rowGraded = 0, padGraded = 0, padGradedAt = -1, padAttended = 0, padAttendedAt = -1;
    bool padAttendedBeforeReal = false;
    for (int64_t t = 0; t < T; ++t) {
      const bool g = graded(t);
      rowGraded += g;
      if (!L.pad[size_t(t)]) continue;
      if (g) {
        ++padGraded;
        if (padGradedAt < 0) padGradedAt = t;
      }
      if (haveMask && b.attentionMask.at(r, t) != 0) {
        ++padAttended;
        if (padAttendedAt < 0) padAttendedAt = t;
        if (t < L.endReal) padAttendedBeforeReal = true;
      }
    }
    batchGraded += rowGraded;
    summary.positions += T;
    summary.paddingPositions += L.padCount;
    summary.realPositions += T - L.padCount;
    summary.graded += rowGraded;
    summary.gradedPadding += padGraded;
    if (padGraded > 0)
      emit(out, "pad-graded", ctx.at(padGradedAt),
           ctx.label(padGradedAt) + ": " + num(padGraded) + " of " + num(rowGraded) +
               " graded positions are padding (first at position " + num(padGradedAt) + ")");
    if (padAttended > 0)
      emit(out, "pad-attended", ctx.at(padAttendedAt),
           ctx.label(padAttendedAt) + ": attention_mask is 1 on " + num(padAttended) + " of " + num(L.padCount) +
               " padding positions (first at position " + num(padAttendedAt) + ")" +
               (padAttendedBeforeReal ? "; real tokens after them attend to them"
                                      : "; right padding, so only the pads themselves are affected"),
           padAttendedBeforeReal ? Severity::Error : Severity::Warning);

    // ---- label alignment: labels-preshifted, label-not-input-id ------------------------------------
    {
      int64_t g = 0, same = 0, shifted = 0, mismatchAt = -1, mismatches = 0;
      for (int64_t t = 0; t < T; ++t) {
        if (!graded(t) || L.pad[size_t(t)]) continue;
        ++g;
        const int64_t l = b.labels.at(r, t);
        const bool eq = l == b.inputIds.at(r, t);
        const bool sh = t + 1 < T && l == b.inputIds.at(r, t + 1);
        same += eq;
        shifted += sh;
        if (!eq) {
          ++mismatches;
          if (mismatchAt < 0) mismatchAt = t;
        }
      }
      if (g >= 4 && shifted * 2 > g && same * 2 < g) {
        emit(out, "labels-preshifted", ctx.at(mismatchAt),
             ctx.label(mismatchAt) + ": " + num(shifted) + " of " + num(g) +
                 " graded labels equal the next position's input id (labels[t] == input_ids[t+1]); only " + num(same) +
                 " equal their own");
      } else if (mismatches > 0) {
        emit(out, "label-not-input-id", ctx.at(mismatchAt),
             ctx.label(mismatchAt) + ": " + num(mismatches) + " of " + num(g) +
                 " graded labels differ from the input id at their position (first at position " + num(mismatchAt) +
                 ": label " + num(b.labels.at(r, mismatchAt)) + ", input " + num(b.inputIds.at(r, mismatchAt)) + ")");
      }
    }

    // ---- examples: no-graded-tokens, statistics -------------------------------------------------
    for (const ExampleRange& ex : L.examples) {
      int64_t g = 0, real = 0;
      for (int64_t t = ex.begin; t < ex.end; ++t) {
        if (L.pad[size_t(t)]) continue;
        ++real;
        g += graded(t);
      }
      ++summary.rows;
      summary.addGradedFraction(g, real);
      if (!dataset) summary.addLength(real);
      if (g == 0) {
        ++summary.rowsNothingGraded;
        std::string what = L.packed() ? ctx.label(ex.begin) + " (packed example at positions " + num(ex.begin) + ".." +
                                            num(ex.end - 1) + " of batch row " + num(r) + ")"
                                      : ctx.label(ex.begin);
        emit(out, "no-graded-tokens", ctx.at(ex.begin), what + ": all " + num(real) + " labels are -100");
      }
    }

    // ---- packing: packing-cross-attention, position-ids-not-reset -----------------------------
    if (L.packed()) {
      const std::vector<int64_t> eager = segmentIdsForRow(b, r, MaskSemantics::Eager);
      const std::vector<int64_t> varlen = segmentIdsForRow(b, r, MaskSemantics::Varlen);
      int64_t crossAt = -1, crossPairs = 0;
      bool varlenSeparates = true;
      for (size_t i = 1; i < L.examples.size(); ++i) {
        const ExampleRange& cur = L.examples[i];
        // Does any key of an earlier example share the eager segment id of this example's first token?
        const int64_t id = eager[size_t(cur.begin)];
        bool sees = false;
        for (size_t j = 0; j < i && !sees; ++j)
          for (int64_t t = L.examples[j].begin; t < L.examples[j].end; ++t)
            if (eager[size_t(t)] != 0 && eager[size_t(t)] == id) {
              sees = true;
              break;
            }
        if (sees) {
          ++crossPairs;
          if (crossAt < 0) crossAt = cur.begin;
          if (varlen[size_t(cur.begin)] == varlen[size_t(L.examples[i - 1].begin)]) varlenSeparates = false;
        }
      }
      if (crossAt >= 0) {
        const bool paddingFree = B == 1 && L.padCount == 0 && varlenSeparates;
        std::string msg = ctx.label(crossAt) + ": " + num(crossPairs) + " of " + num(int64_t(L.examples.size()) - 1) +
                          " packed examples after the first can attend to the examples before them (attention_mask " +
                          "does not separate them; first at batch row " + num(r) + " position " + num(crossAt) + ")";
        if (paddingFree)
          msg += "; a padding-free row: correct only under FlashAttention varlen (flash_attention_2)";
        else if (varlenSeparates)
          msg += "; position ids restart, so only FlashAttention varlen would keep them apart";
        emit(out, "packing-cross-attention", ctx.at(crossAt), msg,
             paddingFree ? std::optional<Severity>(Severity::Warning) : std::nullopt);
      }
      int64_t notReset = 0, notResetAt = -1;
      for (size_t i = 1; i < L.examples.size(); ++i) {
        const int64_t t = L.examples[i].begin;
        if (!havePos || b.positionIds.at(r, t) != 0) {
          ++notReset;
          if (notResetAt < 0) notResetAt = t;
        }
      }
      if (notReset > 0)
        emit(out, "position-ids-not-reset", ctx.at(notResetAt),
             ctx.label(notResetAt) + ": " + num(notReset) + " packed example(s) do not restart position ids at 0 (" +
                 (havePos ? "position " + num(b.positionIds.at(r, notResetAt)) + " at batch position " + num(notResetAt)
                          : std::string("position_ids not given, so the model counts across the row")) +
                 ")");
    }

    // ---- left-pad-positions, right-pad-generation --------------------------------------------
    if (L.leftPadded() && L.firstReal < T) {
      if (!havePos)
        emit(
            out, "left-pad-positions", ctx.at(L.firstReal),
            ctx.label(L.firstReal) + ": " + num(L.firstReal) +
                " left pads and no position_ids: the model derives arange(T), so the first real token is at position " +
                num(L.firstReal));
      else if (b.positionIds.at(r, L.firstReal) != 0)
        emit(out, "left-pad-positions", ctx.at(L.firstReal),
             ctx.label(L.firstReal) + ": " + num(L.firstReal) + " left pads and the first real token has position id " +
                 num(b.positionIds.at(r, L.firstReal)) + " instead of 0");
    }
    if (o.generation && L.rightPadded())
      emit(out, "right-pad-generation", ctx.at(L.endReal),
           ctx.label(L.endReal) + ": " + num(T - L.endReal) + " pads after the prompt (position " + num(L.endReal) +
               " on); generation would continue from a pad");

    // ---- duplicate-bos ----------------------------------------------------------------------
    if (b.bosTokenId) {
      for (const ExampleRange& ex : L.examples) {
        if (ex.end - ex.begin >= 2 && b.inputIds.at(r, ex.begin) == *b.bosTokenId &&
            b.inputIds.at(r, ex.begin + 1) == *b.bosTokenId) {
          emit(out, "duplicate-bos", ctx.at(ex.begin),
               ctx.label(ex.begin) + ": BOS (id " + num(*b.bosTokenId) + ") twice at the start, positions " +
                   num(ex.begin) + " and " + num(ex.begin + 1));
          break;
        }
      }
    }

    // ---- role-aware rules ---------------------------------------------------------------------
    if (meta) {
      const auto& m = *meta;
      // Graded composition.
      int64_t promptTotal = 0, promptGraded = 0, promptGradedAt = -1, promptMaskedById = 0;
      std::map<PositionKind, int64_t> promptByKind;
      for (int64_t t = 0; t < T; ++t) {
        if (L.pad[size_t(t)]) continue;
        const PositionMeta& pm = m[size_t(t)];
        if (pm.reply) {
          summary.gradedReply += graded(t);
          continue;
        }
        if (pm.kind == PositionKind::Separator) {
          summary.gradedUnknown += graded(t);
          continue;
        }
        if (!isPromptKind(pm.kind)) continue;
        ++promptTotal;
        // Masked because it is the pad id (labels=mask_pad_id with pad == an end token): not a choice
        // about the prompt, so it does not make a full-sequence row look partial.
        if (!graded(t) && padId && b.inputIds.at(r, t) == *padId) ++promptMaskedById;
        if (graded(t)) {
          ++promptGraded;
          ++promptByKind[pm.kind];
          if (promptGradedAt < 0) promptGradedAt = t;
        }
      }
      summary.gradedPrompt += promptGraded;
      if (promptGraded > 0) {
        const int64_t nEx = int64_t(L.examples.size());
        const bool fullSequence = promptGraded + nEx + promptMaskedById >= promptTotal;
        const bool deliberate =
            o.intent == LabelIntent::FullSequence || (o.intent == LabelIntent::Unknown && fullSequence);
        if (deliberate) {
          if (fullSequenceRows) ++*fullSequenceRows;
        } else if (o.intent != LabelIntent::FullSequence) {
          std::string kinds;
          for (auto [k, n] : promptByKind)
            kinds += std::string(kinds.empty() ? "" : ", ") + positionKindName(k) + " " + num(n);
          emit(out, "prompt-graded", ctx.at(promptGradedAt),
               ctx.label(promptGradedAt) + ": " + num(promptGraded) + " of " + num(promptTotal) +
                   " prompt positions are graded (" + kinds + "), first at position " + num(promptGradedAt));
        }
      }
      // Replies per example.
      for (const ExampleRange& ex : L.examples) {
        struct Reply {
          int64_t first = -1, positions = 0, graded = 0, closing = -1, content = 0;
          bool truncated = false;
        };
        std::map<int32_t, Reply> replies; // by message index, in order
        for (int64_t t = ex.begin; t < ex.end; ++t) {
          const PositionMeta& pm = m[size_t(t)];
          if (!pm.reply || pm.messageIndex < 0) continue;
          Reply& rp = replies[pm.messageIndex];
          if (rp.first < 0) rp.first = t;
          ++rp.positions;
          rp.graded += graded(t);
          if (pm.closesReply)
            rp.closing = t;
          else if (!pm.scaffolding)
            ++rp.content;
          rp.truncated = rp.truncated || pm.replyTruncated;
        }
        bool anyGraded = false;
        for (auto& [idx, rp] : replies) anyGraded = anyGraded || rp.graded > 0;
        // stop-token-not-graded
        int64_t stopMissing = 0, stopAt = -1, withClosing = 0;
        for (auto& [idx, rp] : replies) {
          if (rp.closing < 0) continue;
          ++withClosing;
          if (graded(rp.closing)) continue;
          const bool otherGraded = rp.graded > 0;
          const bool emptyReply = rp.content == 0 && anyGraded;
          if (otherGraded || emptyReply) {
            ++stopMissing;
            if (stopAt < 0) stopAt = rp.closing;
          }
        }
        if (stopMissing > 0)
          emit(out, "stop-token-not-graded", ctx.at(stopAt),
               ctx.label(stopAt) + ": " + num(stopMissing) + " of " + num(withClosing) +
                   " graded replies have label -100 on their closing token (id " + num(b.inputIds.at(r, stopAt)) +
                   ", first at position " + num(stopAt) + ")" +
                   (padId && *padId == b.inputIds.at(r, stopAt) ? "; it is also the pad id" : ""));
        // last-turn-only
        if (replies.size() >= 2) {
          auto last = std::prev(replies.end());
          int64_t ignored = 0, ignoredAt = -1;
          if (last->second.graded > 0)
            for (auto it = replies.begin(); it != last; ++it)
              if (it->second.graded == 0) {
                ++ignored;
                if (ignoredAt < 0) ignoredAt = it->second.first;
              }
          if (ignored > 0)
            emit(out, "last-turn-only", ctx.at(ignoredAt),
                 ctx.label(ignoredAt) + ": " + num(ignored) + " of " + num(int64_t(replies.size()) - 1) +
                     " earlier assistant replies are entirely -100 while the last reply is graded (first at position " +
                     num(ignoredAt) + ")",
                 o.intent == LabelIntent::LastReplyOnly ? std::optional<Severity>(Severity::Warning) : std::nullopt);
        }
        // reply-truncated
        for (auto& [idx, rp] : replies) {
          if (!rp.truncated || rp.graded == 0) continue;
          int64_t lastPos = rp.first + rp.positions - 1;
          emit(out, "reply-truncated", ctx.at(rp.first),
               ctx.label(rp.first) + ": the reply of message " + num(idx) + " is graded (" + num(rp.graded) +
                   " positions) but cut at position " + num(lastPos) + " before its closing token");
          break;
        }
      }
    } else {
      summary.gradedUnknown += rowGraded - padGraded;
      // Without roles: the EOS that follows a graded position should be graded too.
      if (b.eosTokenId) {
        int64_t missing = 0, at = -1, closings = 0;
        for (int64_t t = std::max<int64_t>(1, L.firstReal); t < L.endReal; ++t) {
          if (L.pad[size_t(t)] || b.inputIds.at(r, t) != *b.eosTokenId || !graded(t - 1)) continue;
          ++closings;
          if (!graded(t)) {
            ++missing;
            if (at < 0) at = t;
          }
        }
        if (missing > 0)
          emit(out, "stop-token-not-graded", ctx.at(at),
               ctx.label(at) + ": " + num(missing) + " of " + num(closings) + " EOS tokens (id " + num(*b.eosTokenId) +
                   ") right after graded text have label -100 (first at position " + num(at) + ")" +
                   (padId && *padId == *b.eosTokenId ? "; the pad id is the EOS id" : ""));
      }
    }
  }

  // ---- batch-nothing-graded ---------------------------------------------------------------------
  if (B > 0 && batchGraded == 0 && !o.datasetPositions)
    out.add("batch-nothing-graded", std::nullopt, std::nullopt,
            "all " + num(B * T) + " labels of the batch are -100: the mean loss is 0/0 (NaN)");
  return true;
}

} // namespace maskscope
