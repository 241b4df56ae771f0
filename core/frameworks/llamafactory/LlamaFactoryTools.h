// LLaMA-Factory's function calling (data/tool_utils.py + formatter.py FunctionFormatter / ToolFormatter at
// ff6d4d1, unchanged since 0.9.5): the tools column written into the system turn and a function_call
// message's JSON calls written as the tool format writes them. JSON is read and written as Python's json
// module does (key order kept, json.dumps(ensure_ascii=False) spacing and float repr).
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace maskscope::llamafactory {

// tool_utils.py's TOOLS keys, and those maskscope reproduces (the others are refused by name).
const std::vector<std::string>& upstreamToolFormats();
const std::vector<std::string>& reproducedToolFormats();
// Throws Error as get_tool_utils does for an unknown name ("Tool utils `x` not found.") and, naming the
// reproduced ones, for a format maskscope does not reproduce.
void requireToolFormat(const std::string& name);

// json.dumps(value, ensure_ascii=False) as Python writes it.
std::string pyJsonDumps(const nlohmann::ordered_json& value);

// ToolFormatter(tool_format).apply(content=tools)[0]: the text appended to the system message ("" for an
// empty list). date: Llama3ToolUtils' "Today Date". Throws Error where LLaMA-Factory raises.
std::string formatTools(const std::string& format, const std::string& tools, const std::string& date);

// FunctionFormatter.apply's content before the slots: the calls of a function message rewritten by the
// format. words: (thought_words, tool_call_words) as Template._encode passes them; null for the Llama-2
// class, whose _encode passes neither.
struct FormattedCalls {
  std::string text;
  std::vector<std::string> names; // the called functions, in order (str() of each name)
};
using WordPair = std::pair<std::string, std::string>;
FormattedCalls formatFunction(const std::string& format, const std::string& content,
                              const std::pair<WordPair, WordPair>* words);

} // namespace maskscope::llamafactory
