// The batch a framework's trainer builds per step: the rows the app shows in one batch (Batch rows)
// when a framework spec or config is active, with where the number came from.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace maskscope {

struct FrameworkSpec;

struct FrameworkBatchRows {
  int64_t rows = 1;
  std::string source; // "micro_batch_size 2", "micro_batch_size 1 (Axolotl's default ...)"
};

// The rows the framework's trainer hands its collator per step on one device (TrainerBatches.h's
// trainerBatchSize, as `lint` batches a framework's dataset): what the spec sets (Axolotl's
// micro_batch_size, per_device_train_batch_size of TRL's and LLaMA-Factory's configs), else the
// framework's own default (Axolotl: micro_batch_size 1; the others: transformers' 8). nullopt with
// Axolotl's sample_packing (micro_batch_size sizes the packed bin there) or a value the spec refuses.
std::optional<FrameworkBatchRows> frameworkBatchRows(const FrameworkSpec& spec);

} // namespace maskscope
