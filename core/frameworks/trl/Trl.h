// TRL inside maskscope (internal to core/frameworks/trl): the catalogue of versions, collators and
// options, and the pieces the collator implementations share. Behaviour read from TRL's own source
// and tests: v1.10 = main at 1.10.0.dev0 (commit f2cd577), v1.6.0, v0.18.2 (see TrlCatalogue.cpp).
#pragma once
#include "core/frameworks/Framework.h"

#include <memory>
#include <vector>

namespace maskscope::trl {

FrameworkInfo catalogue();

// SFTTrainer._prepare_dataset (1.10 and 1.6): tokenizing text rows (chat template, EOS), taking
// pre-tokenized rows as they are, building labels from masks (1.10), truncating and dropping rows
// left with nothing graded (1.10), packing (both).
std::vector<PreparedRow> prepareSft(const std::vector<InputRow>& rows, FrameworkContext& ctx);
// DPOTrainer's tokenized columns: prompt_ids/chosen_ids/rejected_ids (1.10) or
// prompt_input_ids/chosen_input_ids/rejected_input_ids (0.18) taken from pre-tokenized rows.
// SFTTrainer with a vision dataset (1.10): the VLM refusals, no preparation, and the rows
// DataCollatorForVisionLanguageModeling builds from messages (TrlVision.cpp).
bool isVisionDataset(const OrderedJson& firstRow);
std::vector<PreparedRow> prepareVision(const std::vector<InputRow>& rows, FrameworkContext& ctx);
std::vector<PreparedRow> preparePreference(const std::vector<InputRow>& rows, FrameworkContext& ctx);
// DataCollatorForCompletionOnlyLM (0.18) takes tokenized rows (input_ids) or text rows tokenized
// with tokenizer(text) as SFTTrainer 0.18 does for a dataset_text_field.
std::vector<PreparedRow> prepareCompletionOnly(const std::vector<InputRow>& rows, FrameworkContext& ctx);

std::unique_ptr<FrameworkImpl> makeLanguageModeling(const FrameworkSpec& spec);
std::unique_ptr<FrameworkImpl> makePreference(const FrameworkSpec& spec);
std::unique_ptr<FrameworkImpl> makeCompletionOnly(const FrameworkSpec& spec);

// A row's list of messages under key ("messages", "prompt", "completion"); a malformed one is an
// error of that row, naming the key.
std::vector<Message> messagesOf(const InputRow& row, const OrderedJson& list, const char* key);

// The pad id SFTTrainer gives the collator: spec pad_token_id, else the tokenizer's pad token
// (SFTConfig pad_token, else tokenizer.pad_token, else tokenizer.eos_token).
int64_t sftPadTokenId(const FrameworkContext& ctx);

} // namespace maskscope::trl
