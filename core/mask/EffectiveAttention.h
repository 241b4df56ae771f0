// Who attends whom under each attention implementation of transformers (eager, sdpa,
// flash_attention_2, flex_attention): the mask that implementation really applies to a batch, and one
// sentence naming the transformers rule that decided it. Rules of transformers 4.57 (masking_utils.py,
// modeling_flash_attention_utils.py); where older releases (< 4.53) differ is said in docs/cli.md.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/AttentionGrid.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope {

enum class AttnImplementation : uint8_t { Eager, Sdpa, FlashAttention2, FlexAttention };
inline constexpr AttnImplementation kAttnImplementations[] = {AttnImplementation::Eager, AttnImplementation::Sdpa,
                                                              AttnImplementation::FlashAttention2,
                                                              AttnImplementation::FlexAttention};

const char* attnImplementationName(AttnImplementation impl); // "flash_attention_2"
std::optional<AttnImplementation> attnImplementationFromName(std::string_view name);
std::string attnImplementationList(); // "eager, sdpa, flash_attention_2, flex_attention"

// The implementation a run uses and whether the user chose it.
struct AttnChoice {
  AttnImplementation implementation = AttnImplementation::Sdpa;
  bool assumed = true;
  std::string why; // what implied it when assumed ("the dump has no attention_mask ..."), else "chosen"
};
// What the batch or its framework implies: a framework's stated attn_implementation; flash_attention_2
// for a padding-free batch (no attention_mask, or cu_seq_lens); else sdpa, transformers' default.
AttnChoice impliedAttnImplementation(const Batch& batch);
// name empty: impliedAttnImplementation; else that implementation. Throws Error naming the allowed
// values on another name.
AttnChoice chooseAttnImplementation(const Batch& batch, const std::string& name);

struct EffectiveMask {
  AttnImplementation implementation = AttnImplementation::Sdpa;
  std::string rule; // "flash_attention_2: attention_mask is all ones, so transformers drops it; ..."
  // Per row [T]: 0 = a key nobody attends (padding), 1.. = the sequence a position belongs to; a query
  // attends key k <= q of its own sequence (a padding query: any non-padding key), as cellStateOf.
  std::vector<std::vector<int64_t>> segments;
  // Per row [T * T] (q * T + k, 1 = may attend) when a 4-D attention_mask decides; else empty.
  std::vector<std::vector<uint8_t>> cells;
  // No causal mask (the BERT aside, core/mask/MaskedLm.h): a query sees every non-padding key, before or
  // after it (bidirectionalCellState). No implementation of a causal model applies it.
  bool bidirectional = false;

  CellState state(int64_t row, int64_t q, int64_t k, int64_t window = 0) const;
  AttentionGrid grid(int64_t row, int64_t window = 0) const;
  // Allowed cells (q > k, both inside `examples`) whose query and key lie in different examples.
  int64_t crossExampleCells(int64_t row, const std::vector<Segment>& examples) const;
  // The segments as a [B, T] attention_mask of segment ids (0 = padding) for the loss engine, which
  // applies exactly cellStateOf. Throws Error when a 4-D mask is not block-diagonal causal, or the mask
  // is bidirectional.
  IntGrid segmentIdMask() const;
};

// The effective mask of every row under `impl`. Throws Error when transformers cannot run the batch
// under it (flash_attention_2 with a 4-D mask).
EffectiveMask effectiveAttention(const Batch& batch, AttnImplementation impl);

} // namespace maskscope
