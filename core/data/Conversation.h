// A conversation as read from a dataset row: messages with roles, plus the row's origin.
// Prompt/completion rows keep both halves so completion-only grading knows the split.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace maskscope {

// JSON that keeps object keys in file order, as Python's json does: templates print tools and
// extra fields with tojson, and transformers keeps the order the dataset wrote.
using OrderedJson = nlohmann::ordered_json;

struct Message {
  std::string role;    // "system", "user", "assistant", "tool", ... as the dataset names it
  std::string content; // UTF-8 text
  OrderedJson extra;   // other fields of the message object (tool_calls, name, ...), or null
};

// The row shapes a dataset file may hold (docs/cli.md, Datasets). datasets.load_dataset infers one
// schema per file, so a file that mixes them is refused or read differently (lint: mixed-row-shapes).
enum class RowShape : uint8_t { Messages, PromptCompletionText, PromptCompletionMessages, ShareGpt, Alpaca };
const char* rowShapeName(RowShape s); // "messages", "prompt/completion (text)", ...

struct Conversation {
  std::vector<Message> messages;
  // For prompt/completion rows: messages [0, promptMessageCount) are the prompt. -1 otherwise.
  int promptMessageCount = -1;
  // Plain-text prompt/completion rows (strings, not message lists) bypass the chat template.
  bool plainText = false;
  std::string plainPrompt;
  std::string plainCompletion;
  OrderedJson tools;          // "tools" of the row, or null
  OrderedJson extraVariables; // other top-level fields the template may read, or null

  // Where the row came from, for messages and for jumping back to it.
  std::string sourceFile;
  long sourceLine = -1; // 1-based line of the row (JSONL) or of its opening brace (JSON)
  long sourceItem = -1; // a JSON-list file: 0-based index of the row in the list (unreadable ones count); else -1
  long rowIndex = -1;   // 0-based index among the rows that parsed
  RowShape shape = RowShape::Messages;
};

} // namespace maskscope
