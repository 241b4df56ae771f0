// `maskscope render`: a conversation through a chat template, exactly as transformers'
// apply_chat_template(..., tokenize=False), with the {% generation %} byte spans.
#pragma once
#include "core/commands/CommandIO.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

struct RenderArgs {
  std::string templateSpec;
  std::string messagesFile; // JSON list of messages, or an object with "messages" (+ "tools", extra variables)
  std::string dataFile;     // a dataset; with row
  long row = -1;
  bool addGenerationPrompt = false;
  std::vector<std::pair<std::string, std::string>> vars; // --var k=v
  std::optional<std::string> now;                        // --now 2024-07-26
  std::string tokenizerSpec;
  std::string toolsFile; // --tools FILE: a JSON list of tool schemas passed as `tools` (replaces the input's)
};

// Prints {"text": str, "generation_spans": [[begin, end]] | null} with --json, the text otherwise.
int runRender(const RenderArgs& args, CommandIO& io);

} // namespace maskscope
