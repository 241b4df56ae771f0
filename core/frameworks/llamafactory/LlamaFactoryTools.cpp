// tool_utils.py's tool and function formatters and FunctionFormatter.apply (formatter.py) at ff6d4d1, line
// by line; Python values are modelled by the Jinja interpreter's values (str(), json.dumps as Python
// prints them). Where Python raises (a KeyError, a TypeError on the wrong type), maskscope throws Error
// naming what LLaMA-Factory would fail on.
#include "core/frameworks/llamafactory/LlamaFactoryTools.h"

#include "core/template/jinja/Value.h"
#include "core/util/Error.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace maskscope::llamafactory {

namespace {

using jinja::Value;

// json.loads: nlohmann reads what Python reads except NaN/Infinity and integers past 64 bits (Python
// keeps them exact; nlohmann would make them floats): those are refused.
Value loads(const std::string& text, const std::string& what) {
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
      continue;
    }
    if (c < '0' || c > '9' || (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '.')))
      continue;
    size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    const bool fraction = j < text.size() && (text[j] == '.' || text[j] == 'e' || text[j] == 'E');
    if (!fraction && j - i > 18)
      throw Error(what + " holds an integer of " + std::to_string(j - i) +
                  " digits: Python keeps it exact, maskscope does not reproduce that");
    i = j - 1;
  }
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw Error("Invalid JSON format in " + what + " (LLaMA-Factory raises: RuntimeError)");
  }
  return Value::fromJson(j);
}

std::string dumps(const Value& v, int indent = -1) {
  std::string out;
  v.appendJson(out, indent, 0);
  return out;
}

std::string str(const Value& v) { return v.toStr(); }

// dict.get(key) / dict[key] on a Python dict; null when absent.
const Value* find(const Value& d, std::string_view key) {
  if (!d.isDict()) return nullptr;
  for (const auto& [k, v] : d.dictObj().entries)
    if (k == key) return &v;
  return nullptr;
}

const Value& requireDict(const Value& v, const std::string& what) {
  if (!v.isDict()) throw Error(what + " is " + v.typeName() + ", not an object (LLaMA-Factory fails on it)");
  return v;
}

const Value& at(const Value& d, std::string_view key, const std::string& what) {
  requireDict(d, what);
  if (const Value* v = find(d, key)) return *v;
  throw Error(what + " has no \"" + std::string(key) + "\" (LLaMA-Factory raises KeyError)");
}

bool isFunctionType(const Value& tool) {
  const Value* t = find(tool, "type");
  return t && t->isString() && t->str() == "function";
}

// tool.get("function", "") if tool.get("type") == "function" else tool
Value unwrapped(const Value& tool, bool missingIsTool) {
  if (!isFunctionType(tool)) return tool;
  if (const Value* f = find(tool, "function")) return *f;
  return missingIsTool ? tool : Value::string("");
}

// tool if tool.get("type") == "function" else {"type": "function", "function": tool}
Value wrapped(const Value& tool) {
  if (isFunctionType(tool)) return tool;
  auto d = std::make_shared<jinja::DictObj>();
  d->entries.emplace_back("type", Value::string("function"));
  d->entries.emplace_back("function", tool);
  return Value::dict(std::move(d));
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// `name in container` for tool["parameters"].get("required", []).
bool contains(const Value& container, const std::string& name) {
  if (container.isString()) return container.str().find(name) != std::string::npos;
  if (container.isDict()) return find(container, name) != nullptr;
  if (container.isList()) {
    const auto& items = container.listObj().items;
    return std::any_of(items.begin(), items.end(), [&](const Value& v) { return v.isString() && v.str() == name; });
  }
  throw Error("a tool's \"required\" is " + container.typeName() + " (LLaMA-Factory raises TypeError)");
}

// ", ".join(param["enum"]) for a list of strings or a string (its characters).
std::string joinEnum(const Value& e) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (e.isString()) { // joins its characters
    if (std::any_of(e.str().begin(), e.str().end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
      throw Error("a tool's \"enum\" is a non-ASCII string: its characters are not reproduced");
    for (char c : e.str()) add(std::string(1, c));
    return out;
  }
  if (!e.isList()) throw Error("a tool's \"enum\" is " + e.typeName() + ": only lists of strings are reproduced");
  for (const Value& v : e.listObj().items) {
    if (!v.isString())
      throw Error("a tool's \"enum\" holds a " + v.typeName() + " (LLaMA-Factory's join raises TypeError)");
    add(v.str());
  }
  return out;
}

const std::string kDefaultToolPrompt =
    "You have access to the following tools:\n{tool_text}Use the following format if using a tool:\n```\n"
    "Action: tool name (one of [{tool_names}])\nAction Input: the input to the tool, in a JSON format representing "
    "the kwargs (e.g. ```{\"input\": \"hello world\", \"num_beams\": 5}```)\n```\n";
const std::string kGlm4ToolPrompt =
    "你是一个名为 ChatGLM 的人工智能助手。你是基于智谱 AI 公司训练的语言模型 GLM-4 模型开发的，"
    "你的任务是针对用户的问题和要求提供适当的答复和支持。\n\n# 可用工具{tool_text}";
const std::string kLlama3ToolPrompt =
    "Cutting Knowledge Date: December 2023\nToday Date: {date}\n\nYou have access to the following functions. To call "
    "a function, please respond with JSON for a function call. Respond in the format {\"name\": function name, "
    "\"parameters\": dictionary of argument name and its value}. Do not use variables.\n\n{tool_text}";
const std::string kQwenToolPrompt =
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with "
    "function signatures within <tools></tools> XML tags:\n<tools>{tool_text}\n</tools>\n\nFor each function call, "
    "return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";

// str.format with named fields whose values hold no braces of their own (each field appears once).
std::string fill(std::string pattern, std::initializer_list<std::pair<const char*, std::string>> fields) {
  std::string out;
  size_t pos = 0;
  while (pos < pattern.size()) {
    const size_t open = pattern.find('{', pos);
    if (open == std::string::npos) break;
    out += pattern.substr(pos, open - pos);
    const size_t close = pattern.find('}', open);
    const std::string name = pattern.substr(open + 1, close - open - 1);
    bool known = false;
    for (const auto& [k, v] : fields)
      if (name == k) {
        out += v;
        known = true;
      }
    if (!known) out += pattern.substr(open, close - open + 1); // the literal JSON braces of the prompts
    pos = close + 1;
  }
  return out + pattern.substr(pos);
}

std::string defaultTools(const std::vector<Value>& tools) {
  std::string toolText, toolNames;
  for (const Value& raw : tools) {
    const Value tool = unwrapped(raw, false);
    const Value& parameters = at(tool, "parameters", "a tool");
    std::string paramText;
    const Value& properties = requireDict(at(parameters, "properties", "a tool's parameters"), "\"properties\"");
    for (const auto& [name, param] : properties.dictObj().entries) {
      requireDict(param, "parameter " + name);
      std::string required, enumText, items;
      const Value* req = find(parameters, "required");
      if (req && contains(*req, name)) required = ", required";
      if (const Value* e = find(param, "enum"); e && e->truthy())
        enumText = ", should be one of [" + joinEnum(*e) + "]";
      if (const Value* it = find(param, "items"); it && it->truthy()) {
        const Value* type = find(requireDict(*it, "\"items\" of " + name), "type");
        items = ", where each item should be " + (type ? str(*type) : std::string());
      }
      const Value* type = find(param, "type");
      const Value* desc = find(param, "description");
      paramText += "  - " + name + " (" + (type ? str(*type) : "") + required + "): " + (desc ? str(*desc) : "") +
                   enumText + items + "\n";
    }
    const Value& name = at(tool, "name", "a tool");
    if (!name.isString())
      throw Error("a tool's name is " + name.typeName() + " (LLaMA-Factory's join raises TypeError)");
    const Value* desc = find(tool, "description");
    toolText += "> Tool Name: " + name.str() + "\nTool Description: " + (desc ? str(*desc) : "") + "\nTool Args:\n" +
                paramText + "\n";
    toolNames += (toolNames.empty() ? "" : ", ") + name.str();
  }
  return fill(kDefaultToolPrompt, {{"tool_text", toolText}, {"tool_names", toolNames}});
}

std::string toolsFor(const std::string& format, const std::vector<Value>& tools, const std::string& date) {
  for (const Value& t : tools) requireDict(t, "a tool"); // tool.get(...) on anything else raises
  if (format == "default") return defaultTools(tools);
  std::string toolText;
  if (format == "glm4") {
    for (const Value& raw : tools) {
      const Value tool = unwrapped(raw, false);
      toolText += "\n\n## " + str(at(tool, "name", "a tool")) + "\n\n" + dumps(tool, 4) +
                  "\n在调用上述函数时，请使用 Json 格式表示调用的参数。";
    }
    return fill(kGlm4ToolPrompt, {{"tool_text", toolText}});
  }
  if (format == "llama3") {
    for (const Value& tool : tools) toolText += dumps(wrapped(tool), 4) + "\n\n";
    return fill(kLlama3ToolPrompt, {{"date", date}, {"tool_text", toolText}});
  }
  if (format == "mistral") {
    std::vector<Value> all;
    for (const Value& tool : tools) all.push_back(wrapped(tool));
    return "[AVAILABLE_TOOLS] " + dumps(Value::list(std::move(all))) + "[/AVAILABLE_TOOLS]";
  }
  for (const Value& tool : tools) toolText += "\n" + dumps(wrapped(tool)); // qwen
  return fill(kQwenToolPrompt, {{"tool_text", toolText}});
}

struct Call {
  Value name, arguments; // FunctionCall(name, json.dumps(arguments)): arguments kept as the value
};

// _parse_functions: json.loads, a single call made a list, then tc["name"] / tc["arguments"].
std::vector<Call> parseFunctions(const std::string& json) {
  const Value v = loads(json, "function message");
  std::vector<Value> calls = v.isList() ? v.listObj().items : std::vector<Value>{v};
  std::vector<Call> out;
  for (const Value& tc : calls)
    out.push_back({at(tc, "name", "a function call"), at(tc, "arguments", "a function call")});
  return out;
}

Value object(std::initializer_list<std::pair<const char*, Value>> entries) {
  auto d = std::make_shared<jinja::DictObj>();
  for (const auto& [k, v] : entries) d->entries.emplace_back(k, v);
  return Value::dict(std::move(d));
}

std::string functionsFor(const std::string& format, const std::vector<Call>& calls) {
  std::string out;
  if (format == "default") {
    for (const Call& c : calls)
      out += (out.empty() ? "" : "\n") + ("Action: " + str(c.name) + "\nAction Input: " + dumps(c.arguments));
    return out;
  }
  if (format == "glm4") {
    if (calls.size() > 1) throw Error("GLM-4 does not support parallel functions.");
    if (calls.empty()) throw Error("a function message with no calls (LLaMA-Factory's glm4 format raises IndexError)");
    return str(calls[0].name) + "\n" + dumps(calls[0].arguments);
  }
  if (format == "qwen") {
    for (size_t i = 0; i < calls.size(); ++i)
      out += (i ? "\n" : "") +
             ("<tool_call>\n" + dumps(object({{"name", calls[i].name}, {"arguments", calls[i].arguments}})) +
              "\n</tool_call>");
    return out;
  }
  std::vector<Value> objects; // llama3: one object alone, else the list; mistral: always the list
  const char* key = format == "llama3" ? "parameters" : "arguments";
  for (const Call& c : calls) objects.push_back(object({{"name", c.name}, {key, c.arguments}}));
  if (format == "llama3" && objects.size() == 1) return dumps(objects[0]);
  return dumps(Value::list(std::move(objects)));
}

// re.search(escape(open) + "(.*?)" + escape(close), s, DOTALL): [match begin, match end) and the group.
struct Match {
  size_t begin = std::string::npos, end = 0;
  std::string group;
};
Match lazySearch(const std::string& s, const WordPair& words) {
  Match m;
  const size_t open = s.find(words.first);
  if (open == std::string::npos) return m;
  const size_t close = s.find(words.second, open + words.first.size());
  if (close == std::string::npos) return m; // no close after the first open: none after a later one either
  m.begin = open;
  m.end = close + words.second.size();
  m.group = s.substr(open + words.first.size(), close - open - words.first.size());
  return m;
}

} // namespace

std::string pyJsonDumps(const nlohmann::ordered_json& value) { return dumps(Value::fromJson(value)); }

const std::vector<std::string>& upstreamToolFormats() {
  static const std::vector<std::string> all = {"default",  "gemma4",   "glm4",    "llama3", "lfm2",
                                               "minimax1", "minimax2", "mistral", "qwen",   "qwen3_5",
                                               "glm4_moe", "seed_oss", "ling"};
  return all;
}

const std::vector<std::string>& reproducedToolFormats() {
  static const std::vector<std::string> done = {"default", "glm4", "llama3", "mistral", "qwen"};
  return done;
}

void requireToolFormat(const std::string& name) {
  const auto& all = upstreamToolFormats();
  if (std::find(all.begin(), all.end(), name) == all.end()) throw Error("Tool utils `" + name + "` not found.");
  const auto& done = reproducedToolFormats();
  if (std::find(done.begin(), done.end(), name) != done.end()) return;
  std::string list;
  for (const std::string& n : done) list += (list.empty() ? "" : ", ") + n;
  throw Error("tool_format " + name + ": LLaMA-Factory's " + name +
              " function-call formatting is not reproduced by maskscope (reproduced: " + list + ")");
}

std::string formatTools(const std::string& format, const std::string& tools, const std::string& date) {
  requireToolFormat(format);
  const Value v = loads(tools, "tool description");
  // len(tools) != 0, then `for tool in tools`: a non-empty dict or string iterates keys or characters,
  // whose .get LLaMA-Factory calls and fails on.
  if (v.isList() && v.listObj().items.empty()) return "";
  if ((v.isDict() && v.dictObj().entries.empty()) || (v.isString() && v.str().empty())) return "";
  if (!v.isList())
    throw Error("the tools are a JSON " + v.typeName() + ", not a list of tools (LLaMA-Factory fails on it)");
  return toolsFor(format, v.listObj().items, date);
}

FormattedCalls formatFunction(const std::string& format, const std::string& content,
                              const std::pair<WordPair, WordPair>* words) {
  requireToolFormat(format);
  FormattedCalls out;
  auto format_ = [&](const std::string& json) {
    const std::vector<Call> calls = parseFunctions(json);
    for (const Call& c : calls) out.names.push_back(str(c.name));
    return functionsFor(format, calls);
  };
  const Match toolCall = words ? lazySearch(content, words->second) : Match{};
  if (toolCall.begin == std::string::npos) {
    const Match thought = words ? lazySearch(content, words->first) : Match{};
    if (thought.begin == std::string::npos) {
      out.text = format_(content);
      return out;
    }
    const std::string whole = content.substr(thought.begin, thought.end - thought.begin);
    out.text = format_(replaceAll(content, whole, ""));
    out.text = whole + out.text;
    return out;
  }
  const std::string whole = content.substr(toolCall.begin, toolCall.end - toolCall.begin);
  const std::string thoughtContent = replaceAll(content, whole, "");
  out.text = thoughtContent + format_(toolCall.group);
  return out;
}

} // namespace maskscope::llamafactory
