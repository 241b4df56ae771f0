// torchtune's collate functions (torchtune/data/_collate.py) and sample packing
// (torchtune/datasets/_packed.py), on pre-tokenized rows with torchtune's columns: tokens, labels,
// input_pos, seq_lens. Versions: 0.7.0 (main at bd2a0fc, version.txt 0.7.0: pad_to_multiple_of and
// cp_degree exist, SFTTransform writes labels pre-shifted: labels[t] = tokens[t+1]) and 0.6.1 (neither
// option; labels aligned with tokens, the recipe shifts them).
#pragma once
#include "core/data/Batch.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maskscope::torchtune {

struct Sample {
  std::vector<int64_t> tokens, labels;
  std::vector<int64_t> inputPos, seqLens; // packed rows only
  std::vector<size_t> origin;             // packDataset: the input samples (indices) a pack holds tokens of
  std::vector<PositionMeta> meta;         // message rows: per token (packing carries it; padding is Padding)
};

struct SftOptions {
  int64_t paddingIdx = 0;
  int64_t ignoreIdx = kIgnoreIndex;
  int64_t padToMultipleOf = 1;
  int64_t cpDegree = 1;
};

// padded_collate_sft's {"tokens", "labels"} (+ "input_pos" when cp_degree > 1).
struct SftBatch {
  IntGrid tokens, labels;
  std::optional<IntGrid> inputPos;
};
// Includes its quirk: with pad_to_multiple_of > 1 a length already a multiple still gets
// pad_to_multiple_of more columns (F.pad by m - len % m).
SftBatch paddedCollateSft(const std::vector<Sample>& batch, const SftOptions& o);

// padded_collate_packed's {"tokens", "labels", "input_pos", "mask"}: mask is the bool block-causal
// [B, T, T] mask create_block_causal_mask builds from seq_lens (the SDPA path; with flex attention on a
// GPU torchtune returns a BlockMask of the same pattern).
struct PackedBatch {
  IntGrid tokens, labels, inputPos;
  std::vector<std::vector<int64_t>> seqLens; // per row, for the mask
  bool mask(int64_t b, int64_t q, int64_t k) const;
};
// Throws Error (exit 2) when rows differ in length or seq_lens do not sum to the row (torch.stack and
// torch.block_diag would fail or build a mask of another size).
PackedBatch paddedCollatePacked(const std::vector<Sample>& batch);

// PackedDataset(ds, max_seq_len, padding_idx, max_packs, split_across_pack).
struct PackOptions {
  int64_t maxSeqLen = 0;
  int64_t paddingIdx = 0;
  std::optional<int64_t> maxPacks;
  bool splitAcrossPack = false;
};
// Throws Error("Dataset sample is too long (...)") as PackedDataset does.
std::vector<Sample> packDataset(const std::vector<Sample>& samples, const PackOptions& o);

// Labels in the Hugging Face convention (label at t = the token at t, the model shifts) from torchtune
// 0.7.0's pre-shifted labels: hf[0] = -100, hf[t] = labels[t-1]; at a packed example's first position
// the shifted-in label came from the previous example's last one, which SFTTransform sets to -100.
std::vector<int64_t> unshiftLabels(const std::vector<int64_t>& preShifted);

} // namespace maskscope::torchtune
