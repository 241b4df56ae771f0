// The BERT aside, computed: masked language modelling on one collated row, the way transformers'
// DataCollatorForLanguageModeling(mlm=True) corrupts it (torch_mask_tokens), next to the same row's
// causal mask. Only real tokens are ever chosen: padding and special tokens never (upstream's
// special_tokens_mask), and BERT attends both ways: every real token sees every real token.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/EffectiveAttention.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace maskscope {

struct MaskedLmOptions {
  double probability = 0.15;          // upstream's mlm_probability
  uint64_t seed = 0;                  // the same seed and row give the same chips (std::mt19937_64: portable)
  int64_t vocabSize = 0;              // the range of upstream's random word (len(tokenizer)); 0 = max id + 1
  std::optional<int64_t> maskTokenId; // the tokenizer's [MASK]; none: transformers refuses mlm=True
  std::vector<int64_t> specialIds;    // the tokenizer's special ids (besides the collator's meta and the
                                      // batch's pad / EOS / BOS ids): never chosen
};

// What a chosen position's input becomes (upstream's 80/10/10 rule).
enum class MlmChoice : uint8_t { None, Mask, Random, Kept };
const char* mlmChoiceName(MlmChoice c); // "none", "mask", "random", "kept"

struct MaskedLmRow {
  int64_t positions = 0;  // T
  int64_t real = 0;       // not padding (paddingOfRow)
  int64_t special = 0;    // real positions holding a special token: never chosen, as upstream
  int64_t candidates = 0; // real - special
  int64_t masked = 0;     // chosen: round(probability * candidates), at least 1 when any candidate
  int64_t byMask = 0, byRandom = 0, kept = 0;
  std::vector<MlmChoice> choice;  // [T]
  std::vector<int64_t> inputIds;  // [T] corrupted: mask id (when known; else the id kept), random id or kept
  std::vector<int64_t> labels;    // [T] the original id at chosen positions, -100 everywhere else
  std::vector<int64_t> maskedAt;  // the chosen positions, ascending
  int64_t causalPairs = 0;        // (real query, real key) pairs the row's causal mask allows
  int64_t bidirectionalPairs = 0; // the same without the causal mask: real * real
  // BERT's loss reads the label at its own position (no shift): every chosen position is scored.
};

// Throws Error for a row outside the batch or a probability outside (0, 1].
MaskedLmRow maskedLmRow(const Batch& batch, int64_t row, const MaskedLmOptions& options);

// The bidirectional mask of every row: a query sees every key that is not padding (paddingOfRow),
// before or after it; pads stay hidden. EffectiveMask::bidirectional is set, so the grid reads no
// cell as "future"; the loss engine cannot run it (segmentIdMask throws).
EffectiveMask bidirectionalMask(const Batch& batch);

} // namespace maskscope
