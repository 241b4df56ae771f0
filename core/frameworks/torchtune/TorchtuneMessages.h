// torchtune's message datasets (chat_dataset, SFTDataset with a message transform): a row of messages made
// torchtune Messages (OpenAIToMessages / ShareGPTToMessages), masked (mask_messages), validated
// (validate_messages) and tokenized by a model tokenizer's tokenize_messages (Llama 3, Qwen 2.5 / Qwen 3),
// as pytorch/torchtune bd2a0fc (version.txt 0.7.0) does.
#pragma once
#include "core/data/Batch.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {
class Tokenizer;
}

namespace maskscope::torchtune {

struct MessageOptions {
  std::string modelTokenizer;                 // llama3, qwen2_5 or qwen3 (the tokenizer builder's family)
  std::string conversationStyle = "openai";   // chat_dataset's conversation_style: openai or sharegpt
  std::string column;                         // conversation_column ("": messages, else conversations)
  std::string maskingStrategy;                // train_on_all, train_on_assistant or train_on_last
  std::optional<std::string> newSystemPrompt; // new_system_prompt
  std::optional<int64_t> maxSeqLen;           // the tokenizer's max_seq_len (truncation)
  std::string truncationType = "right";       // the tokenizer's truncation_type
};

// The model tokenizers reproduced (the builder names torchtune's configs use under tokenizer._component_).
const std::vector<std::string>& messageTokenizers();

// What SFTTransform returns for one row: tokens, labels pre-shifted (labels[t] = tokens[t+1] or -100
// where mask[t+1]; the last -100) and maskscope's role facts per token. warnings: what torchtune dropped
// without a word (an assistant's tool_calls: the message named). Throws Error with torchtune's own message where it
// raises (validate_messages, a KeyError on a ShareGPT role, a content it cannot read); field: the row key.
struct MessageSample {
  std::vector<int64_t> tokens, labels;
  std::vector<PositionMeta> meta;
  std::vector<std::string> warnings;
};
MessageSample tokenizeMessageRow(const nlohmann::json& row, const MessageOptions& o, const Tokenizer& tokenizer,
                                 std::string& field);

} // namespace maskscope::torchtune
