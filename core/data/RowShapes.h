// The four dataset row shapes (docs/cli.md, Datasets) mapped to one Conversation: messages,
// prompt/completion, ShareGPT, Alpaca. DatasetReader applies it to every row it reads.
#pragma once
#include "core/data/Conversation.h"

#include <vector>

namespace maskscope {

// Converts one parsed row to a conversation; throws Error(reason) when the row has no known shape.
Conversation conversationFromJson(const OrderedJson& row);
// A JSON list of {"role", "content", ...} messages (field names the list in errors); throws Error.
std::vector<Message> messagesFromJson(const OrderedJson& list, const char* field);

} // namespace maskscope
