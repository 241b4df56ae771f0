// Packing rules: the examples packed into one row must not attend to each other. Segments as the
// model sees them come from core/mask (eager/SDPA: attention_mask; varlen: position-id restarts).
#include "core/lint/LintRegistry.h"
#include "core/mask/AttentionGrid.h"
#include "core/mask/EffectiveAttention.h"
#include "core/util/Error.h"

#include <unordered_set>

namespace maskscope {

namespace {

// For each example: does a key of an example before it share the eager segment id of its first token?
// One pass, the ids seen so far in a set (linear in the row: a row can pack thousands of examples).
std::vector<uint8_t> seesEarlierExamples(const RowLayout& L, const std::vector<int64_t>& eager) {
  std::vector<uint8_t> sees(L.examples.size(), 0);
  std::unordered_set<int64_t> seen;
  for (size_t i = 0; i < L.examples.size(); ++i) {
    sees[i] = seen.count(eager[size_t(L.examples[i].begin)]) ? 1 : 0;
    for (int64_t t = L.examples[i].begin; t < L.examples[i].end; ++t)
      if (eager[size_t(t)] != 0) seen.insert(eager[size_t(t)]);
  }
  return sees;
}

// Where the examples start, in the terms the finding's row uses: positions of the dump's row, or
// the dataset rows packed together (a collated row's positions mean nothing to the dataset).
std::string where(const RowInput& in) {
  if (!in.o.datasetPositions) return "examples start at " + in.L.boundaries();
  std::string rows;
  for (const ExampleRange& e : in.L.examples)
    if (e.sourceRow >= 0) rows += (rows.empty() ? "" : ", ") + num(e.sourceRow);
  return rows.empty() ? "examples start at " + in.L.boundaries() + " of the packed row"
                      : "packed together: dataset rows " + rows;
}

// Under the attention implementation the run uses (--attn-implementation, else what the batch implies):
// does it keep this row's examples apart, and would another one? The finding must agree with the grid
// the user sees under that implementation, and a leak that only some implementations have is
// packing-depends-on-attention's (AttentionRules.cpp), never reported twice.
struct UnderImplementations {
  bool chosenSeparates = false, anotherSeparates = false;
};

UnderImplementations underImplementations(const RowInput& in) {
  std::vector<Segment> examples;
  for (const ExampleRange& e : in.L.examples) examples.push_back({e.begin, e.end, e.sourceRow});
  UnderImplementations u;
  AttnImplementation chosen;
  try {
    chosen = chooseAttnImplementation(in.b, in.o.attnImplementation).implementation;
  } catch (const Error&) {
    return u; // an unknown name is refused by the command before lint runs
  }
  for (AttnImplementation impl : kAttnImplementations) {
    try {
      const bool apart = effectiveAttention(in.b, impl).crossExampleCells(in.r, examples) == 0;
      (impl == chosen ? u.chosenSeparates : u.anotherSeparates) |= apart;
    } catch (const Error&) { // flash_attention_2 with a 4-D mask: not an implementation for this batch
    }
  }
  return u;
}

// The join at position t of a reply and a user turn that the template never writes (RoleRecovery.h).
const ReplyJoin* joinNotOfTemplate(const RowInput& in, int64_t t) {
  if (!in.o.rowJoins || size_t(in.r) >= in.o.rowJoins->size()) return nullptr;
  for (const ReplyJoin& j : (*in.o.rowJoins)[size_t(in.r)].joins)
    if (j.next == t && !j.asTemplate) return &j;
  return nullptr;
}

void packingCrossAttention(const RowInput& in) {
  const RowLayout& L = in.L;
  if (!L.packed()) return;
  const std::vector<int64_t> eager = segmentIdsForRow(in.b, in.r, MaskSemantics::Eager);
  const std::vector<int64_t> varlen = segmentIdsForRow(in.b, in.r, MaskSemantics::Varlen);
  int64_t first = -1, pairs = 0;
  bool varlenSeparates = true;
  const std::vector<uint8_t> sees = seesEarlierExamples(L, eager);
  for (size_t i = 1; i < L.examples.size(); ++i) {
    if (!sees[i]) continue;
    ++pairs;
    if (first < 0) first = L.examples[i].begin;
    if (varlen[size_t(L.examples[i].begin)] == varlen[size_t(L.examples[i - 1].begin)]) varlenSeparates = false;
  }
  if (first < 0) return;
  const bool paddingFree = in.B == 1 && L.padCount == 0 && varlenSeparates;
  // Kept apart by the judged implementation: only a padding-free row is worth a warning (it holds under
  // that attention code alone); leaking there but not under another: packing-depends-on-attention's.
  const UnderImplementations u = underImplementations(in);
  if (u.chosenSeparates ? !paddingFree : u.anotherSeparates) return;
  std::string msg = in.label(first) + ": " + num(pairs) + " of " + num(int64_t(L.examples.size()) - 1) +
                    " packed examples after the first can attend to the examples before them (attention_mask " +
                    "does not separate them; " + where(in) + ")";
  if (L.segmentSource == SegmentSource::CuSeqLens)
    msg += "; boundaries from the dump's cu_seq_lens: correct only when it reaches FlashAttention varlen "
           "(flash_attention_2)";
  else if (L.segmentSource == SegmentSource::Separators) {
    msg += "; naive packing: examples joined by separator tokens into one attention block, positions running on";
    if (const ReplyJoin* j = joinNotOfTemplate(in, first))
      msg += "; at position " + num(first) + " a reply and a user turn are joined by " + j->seen +
             ", which the template never writes between turns (it writes " + j->expected + "): a new conversation";
  } else if (paddingFree && !in.b.attentionMaskGiven)
    msg += "; a padding-free row without attention_mask: correct only where the attention splits it by position_ids "
           "(flash_attention_2; sdpa, eager, flex_attention with transformers >= 4.53; see the attention line)";
  else if (paddingFree)
    msg += "; a padding-free row: correct only under FlashAttention varlen (flash_attention_2)";
  else if (varlenSeparates)
    msg += "; position ids restart, so only FlashAttention varlen would keep them apart";
  // A framework that packs this way by design (its FrameworkFacts say how to separate the examples).
  if (in.b.framework && !in.b.framework->packingSeparationHint.empty())
    msg += "; " + in.b.framework->packingSeparationHint;
  in.emit("packing-cross-attention", first, msg,
          paddingFree ? std::optional<Severity>(Severity::Warning) : std::nullopt);
}

// What makes packing likely in a row whose boundaries cannot be told (empty: nothing): the collator
// given packs, the row opens inside a message (a block cut from a stream of conversations), or another
// row of the batch is packed or opens so.
std::string packingSign(const RowInput& in) {
  const std::vector<RowJoins>& rows = *in.o.rowJoins;
  if (in.o.collatorPacks) return "the collator given (--collator) packs examples into rows";
  if (rows[size_t(in.r)].opensMidMessage)
    return "the row opens inside a message (a turn's closing token comes before its first header), as a block "
           "cut from a stream of concatenated conversations does";
  for (size_t r = 0; r < rows.size(); ++r)
    if (int64_t(r) != in.r && (rows[r].packed || rows[r].opensMidMessage))
      return "row " + num(int64_t(r)) + " of this batch " +
             (rows[r].packed ? std::string("holds conversations packed together") : "opens inside a message") +
             ", so the batch packs";
  return {};
}

void packingBoundariesAmbiguous(const RowInput& in) {
  if (!in.o.rowJoins || size_t(in.r) >= in.o.rowJoins->size() || in.L.packed())
    return; // packed: packing-cross-attention's
  const RowJoins& rj = (*in.o.rowJoins)[size_t(in.r)];
  std::vector<int64_t> at;
  for (const ReplyJoin& j : rj.joins)
    if (j.asTemplate) at.push_back(j.next);
  if (at.empty()) return;
  const std::string sign = packingSign(in);
  if (sign.empty()) return; // an ordinary multi-turn conversation reads exactly so
  std::string positions;
  for (size_t i = 0; i < at.size() && i < 8; ++i) positions += (i ? ", " : "") + num(at[i]);
  if (at.size() > 8) positions += ", ... (" + num(int64_t(at.size())) + " in all)";
  const std::string why = rj.templateMarksStart
                              ? "the row has no token the template opens a conversation with (its BOS), so "
                              : "this template writes no token that starts a conversation, so ";
  in.emit("packing-boundaries-ambiguous", at[0],
          in.label(at[0]) + ": conversation boundaries could not be told apart: " + num(int64_t(at.size())) +
              " user turn(s) follow a reply exactly as the template joins the turns of one conversation (" +
              (at.size() > 1 ? "positions " : "position ") + positions +
              "), and each could as well start another conversation; " + why +
              "a row of back-to-back conversations looks like one long conversation. Packing is likely here: " + sign +
              ". packing-cross-attention and position-ids-not-reset cannot check this row");
}

} // namespace

const std::vector<LintRule>& packingRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info =
           {"packing-cross-attention", S::Error, "packed examples can attend to each other",
            "Packing puts several short examples into one row to avoid padding. The attention mask must then keep "
            "each example to itself; an all-ones mask lets every token of the second example read the first one, "
            "which leaks unrelated text into its context (the model learns spurious dependencies and the loss is lower "
            "than it should be). Resetting position_ids alone does not stop this on the eager or SDPA attention paths; "
            "it only does with FlashAttention's varlen path (attn_implementation='flash_attention_2'), which splits "
            "sequences where position ids restart. Fix: use TRL's padding_free=True with flash_attention_2, "
            "DataCollatorWithFlattening, or a block-diagonal mask (segment ids in attention_mask, as axolotl's "
            "sample packing; LLaMA-Factory: neat_packing: true instead of packing: true alone). The rule judges the "
            "row under the attention implementation the run uses (--attn-implementation, else what the batch "
            "implies, the grid's): a padding-free row (one row, position ids restarting) that it keeps apart is a "
            "warning, since it holds only under that attention code; a leak that another implementation would "
            "avoid is reported by packing-depends-on-attention instead.",
            "batch (segments from the collator, segment ids, position-id resets)"},
       .row = packingCrossAttention},
      {.info =
           {"packing-boundaries-ambiguous", S::Warning, "packed conversations cannot be told from turns",
            "Lint finds naive packing (conversations concatenated into one row, one attention block, positions "
            "running on) from how the conversations are joined: a separator token (an EOS, a pad), a BOS in mid-row, "
            "a system turn after other turns, or a reply and a user turn joined by ids the template never writes "
            "between turns (ChatML conversations joined with \"\\n\": <|im_end|>, \"\\n\\n\", <|im_start|> where "
            "Qwen3's template writes a single \"\\n\"; the template's own render of a conversation is the reference). "
            "Some templates write no token that only a conversation's start has: ChatML has no BOS and an optional "
            "system turn, and Llama 2 writes its <s> before every turn. Conversations joined back to back exactly as "
            "such a template joins turns then read as one long conversation, and no rule can say where one ends. "
            "This warning says so instead of staying silent, but only where the row shows a sign of packing, so an "
            "ordinary multi-turn conversation never gets it: the collator given with --collator packs; the row opens "
            "inside a message (a turn's closing token before its first header: a block cut from a stream of "
            "conversations, as ConstantLengthDataset or a concat-and-chunk does); or another row of the batch is "
            "packed or opens so. It lists the joins where a conversation could start. Fix: check how the rows "
            "were built; if they are packed, pack with segment ids or position resets (see packing-cross-attention), "
            "or put a token that only starts a conversation between them so lint can find the boundaries.",
            "batch dump read with its tokenizer and template (the template's turn joins)"},
       .row = packingBoundariesAmbiguous},
  };
  return rules;
}

} // namespace maskscope
