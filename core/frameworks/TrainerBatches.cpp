// Trainer batch sizes per framework and the facts of a run of batches (see TrainerBatches.h).
#include "core/frameworks/TrainerBatches.h"
#include "core/util/Error.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace maskscope {

namespace {

size_t batchOption(const FrameworkSpec& spec, const char* key) {
  const auto it = spec.options.find(key);
  if (it == spec.options.end() || !it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 65536)
    throw Error(std::string(key) + " must be an integer from 1 to 65536, got " + it->dump(),
                {spec.source, -1, -1, -1, key});
  return size_t(it->get<int64_t>());
}

template <typename T> void addBeyond(std::vector<T>& run, const std::vector<T>& prepared, const std::vector<T>& batch) {
  for (size_t i = prepared.size(); i < batch.size(); ++i) run.push_back(batch[i]);
}

} // namespace

// Where a default batch size comes from. Axolotl: `micro_batch_size: int | None = Field(default=1)` in
// src/axolotl/utils/schemas/training.py at v0.18.0 (2f5cb9da); the others train with transformers'
// TrainingArguments, `per_device_train_batch_size: int = field(default=8)` (training_args.py).
namespace {
std::string defaultNote(const std::string& key) {
  return key == "micro_batch_size" ? " (Axolotl's default: axolotl/utils/schemas/training.py, v0.18.0)"
                                   : " (transformers' TrainingArguments default)";
}
} // namespace

TrainerBatchSize trainerBatchSize(const FrameworkSpec& spec) {
  const auto packing = spec.options.find("sample_packing");
  if (spec.framework == "axolotl" && packing != spec.options.end() && packing->is_boolean() && packing->get<bool>())
    return {SIZE_MAX, "sample_packing: the bins of Axolotl's first step"};
  for (const char* key : {"per_device_train_batch_size", "micro_batch_size"}) {
    const auto it = spec.options.find(key);
    if (it == spec.options.end() || it->is_null()) continue;
    const size_t rows = batchOption(spec, key);
    // The catalogue fills an option's default in: say when the value is that default.
    return {rows, std::string(key) + " " + std::to_string(rows) + (spec.isSet(key) ? "" : defaultNote(key))};
  }
  if (spec.framework == "axolotl") return {1, std::string("micro_batch_size 1") + defaultNote("micro_batch_size")};
  return {8, "per_device_train_batch_size 8 (transformers' TrainingArguments default)"};
}

void addCollatorFacts(FrameworkFacts& run, const FrameworkFacts& prepared, const FrameworkFacts& batch) {
  addBeyond(run.warnings, prepared.warnings, batch.warnings);
  addBeyond(run.dropped, prepared.dropped, batch.dropped);
  addBeyond(run.truncated, prepared.truncated, batch.truncated);
  addBeyond(run.markerNotFound, prepared.markerNotFound, batch.markerNotFound);
  if (run.markerOption.empty()) run.markerOption = batch.markerOption;
  run.assistantOnlyWithoutGeneration = run.assistantOnlyWithoutGeneration || batch.assistantOnlyWithoutGeneration;
  run.masksLabelsByPadId = run.masksLabelsByPadId || batch.masksLabelsByPadId;
  run.paddingFree = run.paddingFree || batch.paddingFree;
  run.legacyLastTurnOnly = run.legacyLastTurnOnly || batch.legacyLastTurnOnly;
  run.labelsPreShifted = run.labelsPreShifted || batch.labelsPreShifted;
  run.attnImplementation = batch.attnImplementation;
  run.attnImplementationAssumed = batch.attnImplementationAssumed;
  if (batch.padTokenId) run.padTokenId = batch.padTokenId;
  if (batch.eosTokenId) run.eosTokenId = batch.eosTokenId;
}

} // namespace maskscope
