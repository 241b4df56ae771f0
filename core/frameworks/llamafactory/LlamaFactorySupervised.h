// LLaMA-Factory's SFT dataset preparation (processor/supervised.py + processor_utils.py at ff6d4d1):
// one example's input_ids/labels with cutoff_len truncation by ratio (infer_seqlen), train_on_prompt,
// mask_history and efficient_eos; and packing (greedy knapsack into cutoff_len rows, position ids per
// example, neat_packing's example index in attention_mask).
#pragma once
#include "core/data/Batch.h"
#include "core/frameworks/llamafactory/LlamaFactoryEncoder.h"
#include "core/frameworks/llamafactory/LlamaFactoryRows.h"

#include <cstdint>
#include <string>
#include <vector>

namespace maskscope::llamafactory {

struct SupervisedOptions {
  int64_t cutoffLen = 2048; // as the config says; packing works with cutoff_len - 1 (DataArguments)
  bool trainOnPrompt = false;
  bool maskHistory = false;
  bool packing = false;
  bool neatPacking = false; // implies packing
};

// infer_seqlen(source_len, target_len, cutoff_len) -> (new_source_len, new_target_len).
std::pair<int64_t, int64_t> inferSeqlen(int64_t sourceLen, int64_t targetLen, int64_t cutoffLen);
// greedy_knapsack: lengths sorted, each knapsack filled with the largest length that still fits.
std::vector<std::vector<int64_t>> greedyKnapsack(std::vector<int64_t> lengths, int64_t capacity);

struct EncodedExample {
  std::vector<int64_t> inputIds, labels;
  std::vector<PositionMeta> meta; // per id: system/user/assistant (reply), for lint and the app
  std::string truncation;         // what cutoff_len cut (turns dropped, prompts or replies shortened); empty: nothing
};
// SupervisedDatasetProcessor._encode_data_example with cutoff = the effective cutoff_len.
EncodedExample encodeExample(const Encoder& enc, const LfExample& ex, const SupervisedOptions& o, int64_t cutoff);

// PackingParams (supervised.py): written per packed row under neat_packing.
struct PackingParams {
  std::vector<int64_t> sequenceBoundaries;
  int64_t rightPaddingLength = 0;
};

// One row as the prepared dataset holds it. positionIds / packing are set for packed rows only.
struct SupervisedRow {
  std::vector<int64_t> inputIds, attentionMask, labels, positionIds;
  std::vector<PositionMeta> meta; // per position (padding: PositionKind::Padding)
  bool packed = false;
  std::optional<PackingParams> packing;
  std::vector<long> sourceRows; // the dataset rows (0-based) whose examples the row holds, in order
};

struct SupervisedDataset {
  std::vector<SupervisedRow> rows;
  std::vector<std::pair<long, std::string>> dropped;   // (dataset row, LLaMA-Factory's reason)
  std::vector<std::pair<long, std::string>> truncated; // (dataset row, what cutoff_len cut; LLaMA-Factory is silent)
};

// Validates the options as DataArguments / get_template_and_fix_tokenizer do; throws Error.
void checkSupervisedOptions(const SupervisedOptions& o, const Template& t);

// The prepared dataset from converted examples (sourceRows[i] = dataset row of examples[i]).
SupervisedDataset prepareSupervised(const Encoder& enc, const std::vector<LfExample>& examples,
                                    const std::vector<long>& sourceRows, const SupervisedOptions& o);

} // namespace maskscope::llamafactory
