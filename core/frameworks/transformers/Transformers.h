// transformers inside maskscope (internal to core/frameworks/transformers): the collators.
#pragma once
#include "core/frameworks/Framework.h"

#include <memory>

namespace maskscope::transformers {

std::unique_ptr<FrameworkImpl> makeFlattening();
std::unique_ptr<FrameworkImpl> makePadding(bool seq2seq); // DataCollatorForLanguageModeling / ForSeq2Seq
std::unique_ptr<FrameworkImpl> makeApplyChatTemplate();

// Features as a collator receives them: pre-tokenized rows (input_ids, labels, attention_mask, in
// the row's key order), or {"text": ...} rows tokenized by tokenizer(text) (input_ids, attention_mask).
std::vector<PreparedRow> readFeatures(const std::vector<InputRow>& rows, const FrameworkContext& ctx);

} // namespace maskscope::transformers
