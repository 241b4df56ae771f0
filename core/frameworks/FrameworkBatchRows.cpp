// Batch rows from a framework spec: read from the options the spec set (given or accepted-and-ignored).
#include "core/frameworks/FrameworkBatchRows.h"
#include "core/frameworks/FrameworkSpec.h"

namespace maskscope {

std::optional<int64_t> frameworkBatchRows(const FrameworkSpec& spec) {
  auto set = [&spec](const char* name) -> std::optional<int64_t> {
    auto it = spec.options.find(name);
    if (!spec.isSet(name) || it == spec.options.end() || !it->is_number_integer() || it->get<int64_t>() < 1)
      return std::nullopt;
    return it->get<int64_t>();
  };
  if (spec.framework == "axolotl") {
    auto packing = spec.options.find("sample_packing");
    if (packing != spec.options.end() && packing->is_boolean() && packing->get<bool>()) return std::nullopt;
    return set("micro_batch_size");
  }
  return set("per_device_train_batch_size");
}

} // namespace maskscope
