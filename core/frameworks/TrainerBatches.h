// The batches a trainer hands the framework's collator: how many prepared rows each holds (the
// batch size of the spec or config, else the framework's own default), and the facts of a run of
// batches (what the preparation recorded plus what every collation added). `lint` judges a
// framework's dataset batch by batch with these, as the trainer's data loader feeds it.
#pragma once
#include "core/data/FrameworkFacts.h"
#include "core/frameworks/FrameworkSpec.h"

#include <cstddef>
#include <string>

namespace maskscope {

struct TrainerBatchSize {
  size_t rows = 8; // prepared rows per batch (SIZE_MAX: every prepared row is one batch already)
  std::string why; // "per_device_train_batch_size 8 (transformers' default)"
};

// per_device_train_batch_size when the spec gives it (TRL's SFTConfig, LLaMA-Factory), else 8
// (transformers' TrainingArguments default, which TRL, transformers, Unsloth and LLaMA-Factory train
// with; torchtune's configs set batch_size, which a spec has no key for: 8 as well). Axolotl:
// micro_batch_size (default 1); with sample_packing its prepared rows are the bins of its first step,
// one batch. Throws Error naming the key when the value is not an integer 1 .. 65536.
TrainerBatchSize trainerBatchSize(const FrameworkSpec& spec);

// Adds to run (the facts so far) what the collation of one batch recorded beyond the preparation's
// facts (prepared): rows it dropped or found no marker in, its warnings, and its flags.
void addCollatorFacts(FrameworkFacts& run, const FrameworkFacts& prepared, const FrameworkFacts& batch);

} // namespace maskscope
