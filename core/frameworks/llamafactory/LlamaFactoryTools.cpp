// tool_utils.py's tool and function formatters and FunctionFormatter.apply (formatter.py) at ff6d4d1, line
// by line; Python values are modelled by the Jinja interpreter's values (str(), json.dumps as Python
// prints them). Where Python raises (a KeyError, a TypeError on the wrong type), maskscope throws Error
// naming what LLaMA-Factory would fail on.
#include "core/frameworks/llamafactory/LlamaFactoryTools.h"

#include "core/template/jinja/Value.h"
#include "core/util/Error.h"
#include "core/util/JsonParse.h"
#include "core/util/StringReplace.h"
#include "core/util/Utf8.h"

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
  // The one depth-capped reader (core/util/JsonParse.h): a dataset's arguments string is untrusted.
  std::string error;
  const nlohmann::ordered_json j = parseOrderedJsonOrExplain(text, &error);
  if (!error.empty()) throw Error("Invalid JSON format in " + what + " (LLaMA-Factory raises: RuntimeError): " + error);
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

// The prompts of tool_utils.py, braces doubled as in the Python source (str.format patterns).
const std::string kDefaultToolPrompt =
    "You have access to the following tools:\n{tool_text}Use the following format if using a tool:\n```\n"
    "Action: tool name (one of [{tool_names}])\nAction Input: the input to the tool, in a JSON format representing "
    "the kwargs (e.g. ```{{\"input\": \"hello world\", \"num_beams\": 5}}```)\n```\n";
const std::string kGlm4ToolPrompt =
    "你是一个名为 ChatGLM 的人工智能助手。你是基于智谱 AI 公司训练的语言模型 GLM-4 模型开发的，"
    "你的任务是针对用户的问题和要求提供适当的答复和支持。\n\n# 可用工具{tool_text}";
const std::string kGlm4MoeToolPrompt =
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with "
    "function signatures within <tools></tools> XML tags:\n<tools>{tool_text}\n</tools>\n\nFor each function call, "
    "output the function name and arguments within the following XML format:\n<tool_call>{{function-name}}"
    "\n<arg_key>{{arg-key-1}}</arg_key>\n<arg_value>{{arg-value-1}}</arg_value>\n<arg_key>{{arg-key-2}}</arg_key>"
    "\n<arg_value>{{arg-value-2}}</arg_value>\n...\n</tool_call>\n";
const std::string kLlama3ToolPrompt =
    "Cutting Knowledge Date: December 2023\nToday Date: {date}\n\nYou have access to the following functions. To call "
    "a function, please respond with JSON for a function call. Respond in the format {{\"name\": function name, "
    "\"parameters\": dictionary of argument name and its value}}. Do not use variables.\n\n{tool_text}";
const std::string kMinimax1ToolPrompt =
    "You are provided with these tools:\n<tools>\n{tool_text}</tools>\n\nIf you need to call tools, please respond "
    "with <tool_calls></tool_calls> XML tags, and provide tool-name and json-object of arguments, following the "
    "format below:\n<tool_calls>\n{{\"name\": <tool-name-1>, \"arguments\": <args-json-object-1>}}\n...\n</tool_calls>";
const std::string kMinimax2ToolPrompt =
    "\n\n# Tools\n\nYou may call one or more tools to assist with the user query.\nHere are the tools available in "
    "JSONSchema format:\n\n<tools>\n{tool_text}</tools>\n\nWhen making tool calls, use XML format to invoke tools and "
    "pass parameters:\n\n<minimax:tool_call>\n<invoke name=\"tool-name-1\">\n<parameter name=\"param-key-1\">"
    "param-value-1</parameter>\n<parameter name=\"param-key-2\">param-value-2</parameter>\n...\n</invoke>\n"
    "</minimax:tool_call>";
const std::string kQwenToolPrompt =
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with "
    "function signatures within <tools></tools> XML tags:\n<tools>{tool_text}\n</tools>\n\nFor each function call, "
    "return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    "{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>";
const std::string kQwen35ToolPrompt =
    "\n\n# Tools\n\nYou have access to the following functions:\n\n<tools>{tool_text}\n</tools>\n\nIf you choose to "
    "call a function ONLY reply in the following format with NO "
    "suffix:\n\n<tool_call>\n<function=example_function_name>"
    "\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\nThis is the value for "
    "the second parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\n"
    "Reminder:\n- Function calls MUST follow the specified format: an inner <function=...></function> block must be "
    "nested within <tool_call></tool_call> XML tags\n- Required parameters MUST be specified\n- You may provide "
    "optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n- If "
    "there is no function call available, answer the question like normal with your current knowledge and do not "
    "tell the user about function calls\n</IMPORTANT>";
const std::string kSeedToolPrompt =
    "system\nYou are Doubao, a helpful AI assistant. You may call one or more functions to assist with the user "
    "query.Tool List:\nYou are authorized to use the following tools (described in JSON Schema format). Before "
    "performing any task, you must decide how to call them based on the descriptions and parameters of these "
    "tools.{tool_text}\n工具调用请遵循如下格式:\n<seed:tool_call>\n<function=example_function_name>\n"
    "<parameter=example_parameter_1>value_1</parameter>\n<parameter=example_parameter_2>This is the value for the "
    "second parameter\nthat can span\nmultiple lines</parameter>\n</function>\n</seed:tool_call>\n";
const std::string kLingToolPrompt =
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function "
    "signatures within <tools></tools> XML tags:\n<tools>{tool_text}\n</tools>\n\nFor each function call, return a "
    "json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    "{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>";
const std::string kLfm2ToolPrompt = "List of tools: <|tool_list_start|>{tool_text}<|tool_list_end|>";

// str.format with named fields: "{{" and "}}" are literal braces, "{name}" a field (each given).
std::string fill(const std::string& pattern, std::initializer_list<std::pair<const char*, std::string>> fields) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
      out.push_back(c);
      ++i;
      continue;
    }
    if (c != '{') {
      out.push_back(c);
      continue;
    }
    const size_t close = pattern.find('}', i);
    const std::string name = pattern.substr(i + 1, close - i - 1);
    for (const auto& [k, v] : fields)
      if (name == k) out += v;
    i = close;
  }
  return out;
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

// The tool formatters of the remaining formats (qwen and the ones LLaMA-Factory added after it).
std::string moreTools(const std::string& format, const std::vector<Value>& tools) {
  std::string toolText;
  if (format == "minimax1" || format == "minimax2") {
    for (const Value& raw : tools) {
      const std::string t = dumps(unwrapped(raw, false));
      toolText += format == "minimax1" ? t + "\n" : "<tool>" + t + "</tool>\n";
    }
    return fill(format == "minimax1" ? kMinimax1ToolPrompt : kMinimax2ToolPrompt, {{"tool_text", toolText}});
  }
  if (format == "qwen3_5") {
    for (const Value& raw : tools) toolText += "\n" + dumps(unwrapped(raw, true));
    return fill(kQwen35ToolPrompt, {{"tool_text", toolText}});
  }
  if (format == "lfm2") {
    std::vector<Value> all;
    for (const Value& raw : tools) all.push_back(unwrapped(raw, true));
    return fill(kLfm2ToolPrompt, {{"tool_text", dumps(Value::list(std::move(all)))}});
  }
  for (const Value& tool : tools) toolText += "\n" + dumps(wrapped(tool)); // qwen, glm4_moe, ling
  if (format == "glm4_moe") return fill(kGlm4MoeToolPrompt, {{"tool_text", toolText}});
  if (format == "ling") return fill(kLingToolPrompt, {{"tool_text", toolText}}) + "\n" + "detailed thinking off";
  return fill(kQwenToolPrompt, {{"tool_text", toolText}});
}

// Gemma4ToolUtils (tool_utils.py at ff6d4d1): declarations and calls in Gemma 4's own notation, strings
// between <|"|> markers.
const std::string kGemmaQuote = "<|\"|>";
std::string gemmaQuoted(const std::string& s) { return kGemmaQuote + s + kGemmaQuote; }

// str(value).upper(): Python upper-cases every Unicode letter; only ASCII is reproduced.
std::string upperOf(const Value& v) {
  std::string out = str(v);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) >= 0x80)
      throw Error("a tool's type \"" + str(v) + "\" has non-ASCII characters: Python's str.upper() is not reproduced");
    c = char(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

// `for item in value` over what a tool's "required" may be: a list's items, a str's characters, a dict's keys.
std::vector<std::string> itemTexts(const Value& v) {
  std::vector<std::string> out;
  if (v.isList())
    for (const Value& item : v.listObj().items) out.push_back(str(item));
  else if (v.isDict())
    for (const auto& [k, _] : v.dictObj().entries) out.push_back(k);
  else if (v.isString())
    for (size_t i = 0, next = 0; i < v.str().size(); i = next) { // one character at a time
      utf8::decode(v.str(), next);
      out.push_back(v.str().substr(i, next - i));
    }
  else
    throw Error("a tool's \"required\" is " + v.typeName() + " (LLaMA-Factory raises TypeError)");
  return out;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// truthy value of d.get(key), or null
const Value* given(const Value& d, std::string_view key) {
  const Value* v = find(d, key);
  return v && v->truthy() ? v : nullptr;
}

// _format_parameters: name:{description:<|"|>...<|"|>,type:<|"|>STRING<|"|>} per property.
std::string gemma4Properties(const Value& properties) {
  std::vector<std::string> parts;
  for (const auto& [name, schema] : requireDict(properties, "a tool's properties").dictObj().entries) {
    requireDict(schema, "a property's schema");
    std::vector<std::string> item;
    if (const Value* d = given(schema, "description")) item.push_back("description:" + gemmaQuoted(str(*d)));
    if (const Value* t = given(schema, "type")) item.push_back("type:" + gemmaQuoted(upperOf(*t)));
    parts.push_back(name + ":{" + joined(item) + "}");
  }
  return joined(parts);
}

std::string gemma4Declaration(const Value& tool) {
  const Value f = unwrapped(tool, true); // tool.get("function", tool) if tool.get("type") == "function" else tool
  const Value* description = find(requireDict(f, "a tool"), "description");
  std::string out = "declaration:" + str(at(f, "name", "a tool")) +
                    "{description:" + gemmaQuoted(description ? str(*description) : "");
  if (const Value* params = given(f, "parameters")) {
    requireDict(*params, "a tool's parameters");
    std::vector<std::string> parts;
    if (const Value* p = given(*params, "properties")) parts.push_back("properties:{" + gemma4Properties(*p) + "}");
    if (const Value* r = given(*params, "required")) {
      std::vector<std::string> names;
      for (const std::string& item : itemTexts(*r)) names.push_back(gemmaQuoted(item));
      parts.push_back("required:[" + joined(names) + "]");
    }
    if (const Value* t = given(*params, "type")) parts.push_back("type:" + gemmaQuoted(upperOf(*t)));
    out += ",parameters:{" + joined(parts) + "}";
  }
  if (const Value* response = given(f, "response")) {
    requireDict(*response, "a tool's response");
    std::vector<std::string> parts;
    if (const Value* d = given(*response, "description")) parts.push_back("description:" + gemmaQuoted(str(*d)));
    const Value* type = find(*response, "type"); // str(response.get("type", "")).upper() == "OBJECT"
    if (type && upperOf(*type) == "OBJECT") parts.push_back("type:" + gemmaQuoted("OBJECT"));
    out += ",response:{" + joined(parts) + "}";
  }
  return out + "}";
}

std::string gemma4Tools(const std::vector<Value>& tools) {
  std::string out;
  for (const Value& tool : tools) out += (out.empty() ? "" : "\n") + gemma4Declaration(tool);
  return out;
}

std::string toolsFor(const std::string& format, const std::vector<Value>& tools, const std::string& date) {
  for (const Value& t : tools) requireDict(t, "a tool"); // tool.get(...) on anything else raises
  if (format == "default") return defaultTools(tools);
  if (format == "gemma4") return gemma4Tools(tools);
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
  return moreTools(format, tools);
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

// value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
std::string valueText(const Value& v) { return v.isString() ? v.str() : dumps(v); }

// `"..." + name` in Python: only a string concatenates.
const std::string& nameString(const Value& name) {
  if (!name.isString()) throw Error("a function name is " + name.typeName() + " (LLaMA-Factory raises TypeError)");
  return name.str();
}

// json.loads(arguments).items(): the arguments must be an object.
const std::vector<std::pair<std::string, Value>>& items(const Value& arguments) {
  if (!arguments.isDict())
    throw Error("a function's arguments are " + arguments.typeName() +
                ", not an object (LLaMA-Factory raises "
                "AttributeError on .items())");
  return arguments.dictObj().entries;
}

// The XML-style call formats: minimax2, qwen3_5, glm4_moe, seed_oss.
std::string xmlCall(const std::string& format, const Call& c) {
  std::string out;
  if (format == "minimax2") {
    out = "<invoke name=\"" + str(c.name) + "\">";
    for (const auto& [k, v] : items(c.arguments))
      out += "\n<parameter name=\"" + k + "\">" + valueText(v) + "</parameter>";
    return out + "\n</invoke>";
  }
  if (format == "qwen3_5") {
    out = "<tool_call>\n<function=" + str(c.name) + ">";
    for (const auto& [k, v] : items(c.arguments)) out += "\n<parameter=" + k + ">\n" + valueText(v) + "\n</parameter>";
    return out + "\n</function>\n</tool_call>";
  }
  if (format == "glm4_moe") {
    out = "\n<tool_call>" + nameString(c.name);
    for (const auto& [k, v] : items(c.arguments))
      out += "\n<arg_key>" + k + "</arg_key>\n<arg_value>" + valueText(v) + "</arg_value>";
    return out;
  }
  out = "\n<seed:tool_call>\n<function=" + nameString(c.name); // seed_oss
  for (const auto& [k, v] : items(c.arguments)) out += "\n<parameter=" + k + ">" + valueText(v) + "</parameter>";
  return out + "\n</function>\n</seed:tool_call>";
}

// LFM2ToolUtils.function_formatter: Pythonic calls, string values quoted as they are (no escaping).
std::string lfm2Calls(const std::vector<Call>& calls) {
  std::string out;
  for (const Call& c : calls) {
    std::string parts;
    for (const auto& [k, v] : items(c.arguments))
      parts += (parts.empty() ? "" : ", ") + k + "=" + (v.isString() ? "\"" + v.str() + "\"" : dumps(v));
    out += (out.empty() ? "" : ", ") + str(c.name) + "(" + parts + ")";
  }
  return "<|tool_call_start|>[" + out + "]<|tool_call_end|>";
}

// Gemma4ToolUtils.function_formatter's _format_argument: strings quoted, dicts with sorted keys, Python's
// str() for numbers.
std::string gemma4Argument(const Value& v, bool escapeKeys) {
  if (v.isString()) return gemmaQuoted(v.str());
  if (v.type() == jinja::Type::Bool) return v.asBool() ? "true" : "false";
  if (v.isDict()) {
    std::vector<std::pair<std::string, const Value*>> entries;
    for (const auto& [k, value] : v.dictObj().entries) entries.emplace_back(k, &value);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> parts;
    for (const auto& [k, value] : entries)
      parts.push_back((escapeKeys ? gemmaQuoted(k) : k) + ":" + gemma4Argument(*value, escapeKeys));
    return "{" + joined(parts) + "}";
  }
  if (v.isList()) {
    std::vector<std::string> parts;
    for (const Value& item : v.listObj().items) parts.push_back(gemma4Argument(item, escapeKeys));
    return "[" + joined(parts) + "]";
  }
  if (v.isNone()) return "null";
  return str(v);
}

// <|tool_call>call:NAME{key:value,...}<tool_call|> per call, the arguments' keys sorted and unquoted; a
// string argument (json.loads of json.dumps gives it back) is written as it is.
std::string gemma4Calls(const std::vector<Call>& calls) {
  std::string out;
  for (const Call& c : calls) {
    out += "<|tool_call>call:" + str(c.name) + "{";
    if (c.arguments.isDict()) {
      const std::string object = gemma4Argument(c.arguments, false); // "{k:v,...}" with the keys sorted
      out += object.substr(1, object.size() - 2);
    } else {
      out += c.arguments.isString() ? c.arguments.str() : gemma4Argument(c.arguments, false);
    }
    out += "}<tool_call|>";
  }
  return out;
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
  if (format == "minimax2" || format == "qwen3_5" || format == "glm4_moe" || format == "seed_oss") {
    for (size_t i = 0; i < calls.size(); ++i) out += (i ? "\n" : "") + xmlCall(format, calls[i]);
    return out;
  }
  if (format == "lfm2") return lfm2Calls(calls);
  if (format == "gemma4") return gemma4Calls(calls);
  if (format == "minimax1") {
    for (const Call& c : calls)
      out += (out.empty() ? "" : "\n") + dumps(object({{"name", c.name}, {"arguments", c.arguments}}));
    return "<tool_calls>\n" + out + "\n</tool_calls>";
  }
  if (format == "qwen" || format == "ling") {
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
  static const std::vector<std::string> done = {"default", "gemma4",  "glm4",     "glm4_moe", "lfm2",
                                                "ling",    "llama3",  "minimax1", "minimax2", "mistral",
                                                "qwen",    "qwen3_5", "seed_oss"};
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
  if (!v.isList() && !v.isDict() && !v.isString())
    throw Error("the tools are a JSON " + v.typeName() + " (LLaMA-Factory's len() raises TypeError)");
  if (format == "seed_oss") return fill(kSeedToolPrompt, {{"tool_text", "\n" + dumps(v)}}); // the whole value
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
