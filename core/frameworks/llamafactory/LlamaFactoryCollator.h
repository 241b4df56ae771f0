// SFTDataCollatorWith4DAttentionMask (collator.py at ff6d4d1) on text rows: transformers'
// DataCollatorForSeq2Seq padding (right side, pad_to_multiple_of, label_pad_token_id), position_ids
// padded with 0 to the new length, and for neat_packing either the 4-D float mask of
// prepare_4d_attention_mask (eager, sdpa, fa3) or, under flash_attention_2, the padding cut away and
// attention_mask None (transformers then separates the examples by position_ids).
#pragma once
#include "core/data/Batch.h"
#include "core/frameworks/llamafactory/LlamaFactorySupervised.h"

#include <optional>
#include <string>
#include <vector>

namespace maskscope::llamafactory {

struct CollatorOptions {
  std::optional<int64_t> padToMultipleOf = 8; // 8 when do_train (run_sft), else None
  int64_t padTokenId = 0;
  int64_t labelPadTokenId = kIgnoreIndex; // -100, or the pad id when ignore_pad_token_for_loss is false
  bool blockDiagAttn = false;             // model_args.block_diag_attn = data_args.neat_packing
  bool neatPacking = false;
  std::string attnImplementation = "sdpa"; // eager | sdpa | flash_attention_2 | flash_attention_3
  std::string computeDtype = "float32";    // float32 | bfloat16 | float16 (the 4-D mask's dtype)
  // 0.9.6.dev0 right-pads position_ids with 0 to the padded length on the non-FA2 path; 0.9.5 leaves
  // them at the rows' length (shorter than input_ids when pad_to_multiple_of added columns).
  bool padPositionIds = true;
};

// torch.finfo(dtype).min for the compute dtypes: the "masked" value of the 4-D mask.
double finfoMin(const std::string& dtype);

// The collator's output, key by key ({"input_ids", "attention_mask", "position_ids"?, "labels"}).
struct CollatedBatch {
  IntGrid inputIds, labels;            // [B, T]
  IntGrid attentionMask;               // [B, T] (2-D mask, or the example indices the 4-D mask is built from)
  bool attentionMaskIs4d = false;      // attention_mask is [B, 1, T, T] float: 0.0 or maskedValue
  bool attentionMaskIsNone = false;    // flash_attention_2 under neat_packing: attention_mask None
  double maskedValue = 0;              // finfo(compute_dtype).min
  std::optional<IntGrid> positionIds;  // [B, T] when the rows carry position_ids (packed rows)
  std::optional<IntGrid> tokenTypeIds; // [B, T] Gemma 3's token_type_ids (1 at <image_soft_token>), padded with 0
  // The 4-D mask's value at [b, 0, q, k]: 0.0 where k <= q, both in the same example and k not padding.
  double mask4d(int64_t b, int64_t q, int64_t k) const;
};

// Throws Error (exit 2) where LLaMA-Factory itself raises: neat packing under flash_attention_2 with
// more than one row ("bsz should be 1 for neat packing"), rows with and without position_ids mixed.
CollatedBatch collate(const std::vector<SupervisedRow>& rows, const CollatorOptions& o);

} // namespace maskscope::llamafactory
