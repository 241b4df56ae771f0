// Axolotl inside maskscope (internal to core/frameworks/axolotl): the registry entry and the
// implementation of `type: chat_template` (dataset preparation + DataCollatorForSeq2Seq).
#pragma once
#include "core/frameworks/Framework.h"

#include <memory>
#include <string>
#include <vector>

namespace maskscope::axolotl {

inline constexpr const char* kReadFrom =
    "axolotl v0.18.0 (2f5cb9da): src/axolotl/prompt_strategies/chat_template.py, utils/chat_templates/, "
    "utils/data/utils.py (sequence_len), utils/collators/batching.py, core/builders/causal.py, "
    "processing_strategies.py, "
    "utils/collators/mm_chat.py";

// packing: sample_packing (the batch's attention_mask then holds segment ids)
std::unique_ptr<FrameworkImpl> makeChatTemplate(bool packing);

// processor_type set: MultiModalChatDataCollator (AxolotlMultimodal.cpp) and its options.
std::unique_ptr<FrameworkImpl> makeMultimodal();
std::vector<OptionInfo> multimodalOptions();

// tokenizer.padding_side as the tokenizer's folder sets it (tokenizer_config.json "padding_side";
// "right" when it says nothing).
std::string tokenizerPaddingSide(const Tokenizer& tokenizer);

} // namespace maskscope::axolotl
