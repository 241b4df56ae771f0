// A conversation after rendering through a chat template and tokenizing: one TokenInfo per
// position, each knowing its message, role, turn and whether it is scaffolding or content.
#pragma once
#include "core/util/ByteSpan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

// Byte ranges of one message inside the rendered text.
struct MessageSpan {
  int messageIndex = -1;
  std::string role;
  int turn = -1;    // index of the user->assistant exchange the message belongs to
  ByteSpan block;   // everything the template emitted for this message (header, content, footer)
  ByteSpan content; // the message's content inside block (empty span when not found verbatim)
};

struct TokenInfo {
  int32_t id = 0;
  std::string text;      // readable piece (decoded), as a person expects to see it
  ByteSpan span;         // UTF-8 byte range in the rendered text
  int messageIndex = -1; // -1 for text outside any message block (BOS, generation prompt, ...)
  std::string role;      // role of that message, empty outside messages
  int turn = -1;
  bool special = false;      // control / added special token
  bool scaffolding = false;  // template text (headers, footers, markers), not message content
  bool inGeneration = false; // inside a {% generation %} span (or the assistant reply when no markers)
  bool think = false;        // inside a <think>...</think> span of an assistant message (tags included)
  bool toolCall = false;     // inside a tool call the assistant message makes (core/collate/ToolCallSpans.h)
};

struct TokenizedConversation {
  std::string text; // the rendered text the tokens cover
  std::vector<TokenInfo> tokens;
  std::vector<MessageSpan> messages;
  std::optional<std::vector<ByteSpan>> generationSpans; // from {% generation %}; nullopt when none
  long rowIndex = -1;
  // Index of the first completion token for prompt/completion rows, -1 otherwise.
  int completionStart = -1;
};

} // namespace maskscope
