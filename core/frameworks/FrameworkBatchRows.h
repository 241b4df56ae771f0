// The batch a framework's trainer builds per step, where its spec or config says: the rows the app
// shows in one batch (Batch rows) when a framework config sets them.
#pragma once
#include <cstdint>
#include <optional>

namespace maskscope {

struct FrameworkSpec;

// The rows the framework's trainer hands its collator per step on one device, where the spec sets
// them: Axolotl's micro_batch_size (not with sample_packing, where it sizes the packed bin instead),
// per_device_train_batch_size of TRL's and LLaMA-Factory's configs (accepted there, and ignored for
// the batch's contents). nullopt when the spec does not set it.
std::optional<int64_t> frameworkBatchRows(const FrameworkSpec& spec);

} // namespace maskscope
