// Attention rules: packed examples kept apart by one attention implementation and not by the one
// the run uses. The masks come from core/mask/EffectiveAttention.h (transformers 4.57's own rules).
#include "core/lint/LintRegistry.h"
#include "core/mask/EffectiveAttention.h"
#include "core/mask/PackedSegments.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

namespace {

// The examples of row r: the collator's own segments when it packed the batch, else the recovered or
// stated ones (segment ids, position-id restarts, cu_seq_lens, separators).
std::vector<Segment> examplesOfRow(const Batch& b, int64_t r) {
  if (size_t(r) < b.segments.size() && b.segments[size_t(r)].size() >= 2) return b.segments[size_t(r)];
  const bool collated = b.segments.size() == size_t(b.batchSize()) && !b.meta.empty() && !b.rolesRecovered;
  return collated ? std::vector<Segment>{} : segmentsOfRow(b, r);
}

bool positionsRestart(const Batch& b) {
  if (!b.positionIds.sameShape(b.inputIds)) return false;
  for (int64_t r = 0; r < b.batchSize(); ++r)
    for (int64_t t = 1; t < b.length(); ++t)
      if (b.positionIds.at(r, t) == 0) return true;
  return false;
}

// The fix in words: the implementation that separates the examples, and the change to the batch
// that makes the chosen one separate them too.
std::string fixFor(const Batch& b, AttnImplementation chosen, const std::vector<AttnImplementation>& separating) {
  std::string fix = "Fix: load the model with attn_implementation=\"" +
                    std::string(attnImplementationName(separating.front())) + "\"";
  const bool flash = chosen == AttnImplementation::FlashAttention2;
  const bool allOnes =
      b.attentionMaskGiven && b.attentionMask4d.empty() &&
      std::none_of(b.attentionMask.values.begin(), b.attentionMask.values.end(), [](int64_t v) { return v != 1; });
  if (!flash && allOnes && positionsRestart(b))
    fix += ", or leave attention_mask out of the batch (padding-free): with no mask transformers (>= 4.53) splits "
           "the row where position_ids restart under every implementation";
  if (flash && b.batchSize() > 1)
    fix += ", or flatten the batch into one row: transformers reads position_ids for FlashAttention's varlen path "
           "only in a batch of one row";
  if (!flash && b.cuSeqLensGiven && !positionsRestart(b))
    fix += ", or write position_ids that restart at 0 in each example (only FlashAttention reads cu_seq_lens)";
  fix += ", or give a block-diagonal mask (segment ids, a 4-D mask) that every implementation applies";
  // A framework that packs this way by design names its own option that separates the examples.
  if (b.framework && !b.framework->packingSeparationHint.empty())
    fix += " (" + b.framework->packingSeparationHint + ")";
  return fix;
}

bool packingDependsOnAttention(const BatchInput& in) {
  const Batch& b = in.batch;
  if (!b.labels.sameShape(b.inputIds) || b.batchSize() == 0) return true;
  AttnChoice choice;
  std::vector<std::pair<AttnImplementation, EffectiveMask>> masks;
  try {
    choice = chooseAttnImplementation(b, in.options.attnImplementation);
    for (AttnImplementation impl : kAttnImplementations) {
      try {
        masks.emplace_back(impl, effectiveAttention(b, impl));
      } catch (const Error&) { // flash_attention_2 with a 4-D mask: not an implementation for this batch
      }
    }
  } catch (const Error&) {
    return true; // an unknown name is refused by the command before lint runs
  }
  const EffectiveMask* chosen = nullptr;
  for (const auto& [impl, m] : masks)
    if (impl == choice.implementation) chosen = &m;
  if (!chosen) return true;
  const std::string how = std::string(attnImplementationName(choice.implementation)) +
                          (choice.assumed ? " (assumed: " + choice.why + ")" : "");
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    const std::vector<Segment> examples = examplesOfRow(b, r);
    if (examples.size() < 2) continue;
    const int64_t leaks = chosen->crossExampleCells(r, examples);
    if (leaks == 0) continue;
    std::vector<AttnImplementation> separating;
    for (const auto& [impl, m] : masks)
      if (impl != choice.implementation && m.crossExampleCells(r, examples) == 0) separating.push_back(impl);
    if (separating.empty()) continue; // no implementation helps: packing-cross-attention's finding
    std::string others;
    for (AttnImplementation impl : separating)
      others += (others.empty() ? "" : ", ") + std::string(attnImplementationName(impl));
    in.out.add("packing-depends-on-attention", r, examples[1].begin,
               "row " + num(r) + ": under " + how + " " + num(leaks) + " query-key pairs reach across the " +
                   num(int64_t(examples.size())) + " packed examples (the second starts at " + num(examples[1].begin) +
                   "); " + others + " would keep them apart. Rule: " + chosen->rule + ". " +
                   fixFor(b, choice.implementation, separating));
  }
  return true;
}

} // namespace

const std::vector<LintRule>& attentionRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info = {"packing-depends-on-attention", S::Error,
                "the attention implementation lets packed examples attend to each other; another would not",
                "A packed or padding-free row holds several examples. Whether they stay apart is decided by the "
                "attention code, and each implementation of transformers reads the batch differently: with "
                "flash_attention_2, position_ids restarting at 0 (or cu_seq_lens) become sequence boundaries, but only "
                "in a batch of one row, and an attention_mask with padding wins over both; with sdpa, eager and "
                "flex_attention, transformers (>= 4.53) splits the row where position_ids stop counting up by 1 only "
                "when no attention_mask is passed, so an all-ones mask makes every example attend to the ones before "
                "it (older versions never split). The same batch can be correct under one implementation and leak "
                "under the one you train with; then each example reads unrelated text and the loss is lower than it "
                "should be. The finding names the implementation it judged (chosen with --attn-implementation, or "
                "assumed from the batch), the transformers rule that decided, and the implementations that would "
                "keep the examples apart. Fix: train with one of those, or change the batch so yours separates them "
                "(drop an all-ones attention_mask, restart position_ids at 0 per example, flatten padding-free "
                "batches into one row for FlashAttention, or give a block-diagonal mask).",
                "batch (packed rows: collator segments, segment ids, position-id restarts, cu_seq_lens)"},
       .beforeRows = packingDependsOnAttention},
  };
  return rules;
}

} // namespace maskscope
