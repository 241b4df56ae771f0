// Where a rendered conversation holds the tool calls of its assistant messages, per template family:
// Qwen / Hermes "<tool_call>...</tool_call>" (one span per call), Mistral "[TOOL_CALLS] [...]" (one
// span for the list), Llama 3.1/3.2 a bare JSON object {"name": ..., "parameters": ...}.
#pragma once
#include "core/data/Conversation.h"
#include "core/data/TokenizedConversation.h"

#include <string>
#include <vector>

namespace maskscope {

struct ToolCallSpan {
  int messageIndex = -1;
  ByteSpan span;    // the call as rendered, markers included
  std::string name; // the function name(s) the span calls, comma-separated
};

// True when the message carries a non-empty "tool_calls" list.
bool messageHasToolCalls(const Message& m);
// The function names of a message's tool calls, in order ("function": {"name"} or a top-level "name").
std::vector<std::string> toolCallNames(const Message& m);

// The function each tool message answers, per message (empty for other messages and when unknown):
// its own "name", else the call its "tool_call_id" names, else the call at its place in the run of tool
// messages after the assistant message that made the calls (Qwen and Llama rows carry no ids).
std::vector<std::string> toolOutputNames(const std::vector<Message>& messages);

// The tool-call spans inside each assistant message block that has tool_calls; messages[i] must be
// the message of rendered span i (conv.messages in order). A message whose calls the template did
// not render gets no span (lint: tools-not-rendered).
std::vector<ToolCallSpan> findToolCallSpans(const std::string& text, const std::vector<MessageSpan>& spans,
                                            const std::vector<Message>& messages);

// Marks TokenInfo::toolCall on tokens that start inside a tool-call span (they are the reply, not
// template scaffolding), gives those tokens and the tokens of tool messages their function's name
// (TokenInfo::toolName) and returns the spans. Run before markRecoveredReplies, which makes them part
// of the reply when the template has no {% generation %} markers.
std::vector<ToolCallSpan> markToolCallSpans(TokenizedConversation& conv, const std::vector<Message>& messages);

} // namespace maskscope
