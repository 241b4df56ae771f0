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
  bool image = false;        // inside an image block the processor expanded (core/media/MediaExpansion.h)
  uint16_t toolName = 0;     // a tool call's or tool output's function (core/data/ToolNames.h), 0 = none
};

// One image placeholder as the processor expanded it (core/media/MediaExpansion.h).
struct ImageSpan {
  int image = -1;             // index among the row's image parts; -1: a placeholder with no image left
  int messageIndex = -1;      // the message of that image part
  ByteSpan block;             // in the text: start marker, image tokens, end marker (what the family has)
  int64_t expectedTokens = 0; // image tokens the image's size gives (0 for a placeholder with no image)
  bool video = false;         // a video block: `image` indexes the row's video parts
};

struct TokenizedConversation {
  std::string text; // the rendered text the tokens cover
  std::vector<TokenInfo> tokens;
  std::vector<MessageSpan> messages;
  std::optional<std::vector<ByteSpan>> generationSpans; // from {% generation %}; nullopt when none
  long rowIndex = -1;
  std::vector<ImageSpan> images; // one per image placeholder in the text (empty without image parts)
  int imageParts = 0;            // image parts of the row's messages
  int videoParts = 0;            // video parts likewise
  std::string visionProcessor;   // the family that expanded them ("qwen2-vl", ...), empty when none
  // Index of the first completion token for prompt/completion rows, -1 otherwise.
  int completionStart = -1;
};

} // namespace maskscope
