// `maskscope tokenize`: ids, tokens and UTF-8 byte offsets of a text, a file, or a JSONL of texts.
#pragma once
#include "core/commands/CommandIO.h"

#include <string>

namespace maskscope {

struct TokenizeArgs {
  std::string tokenizerSpec = "builtin:demo";
  std::string text;
  bool haveText = false;
  std::string textFile;
  std::string jsonlFile;
  bool addSpecialTokens = false;
  bool splitSpecialTokens = false;
};

int runTokenize(const TokenizeArgs& args, CommandIO& io);

} // namespace maskscope
