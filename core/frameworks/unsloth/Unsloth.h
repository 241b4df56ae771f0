// Unsloth inside maskscope (internal to core/frameworks/unsloth): the registry entry and
// train_on_responses_only as a FrameworkImpl.
#pragma once
#include "core/frameworks/Framework.h"
#include "core/frameworks/unsloth/UnslothMarkers.h"

#include <memory>

namespace maskscope::unsloth {

inline constexpr const char* kReadFrom2026 =
    "unsloth-zoo 2026.8.13 (ce232d6c): unsloth_zoo/dataset_utils.py train_on_responses_only, "
    "_find_common_token_ids, sft_prepare_dataset; transformers DataCollatorForSeq2Seq";
inline constexpr const char* kReadFrom2025 =
    "unsloth-zoo 2025.12.7 (48451258): unsloth_zoo/dataset_utils.py train_on_responses_only, "
    "_find_common_token_ids; transformers DataCollatorForSeq2Seq";

std::unique_ptr<FrameworkImpl> makeResponsesOnly(const ZooBehaviour& behaviour);

} // namespace maskscope::unsloth
