// AlpacaDatasetConverter, SharegptDatasetConverter and OpenAIDatasetConverter (converter.py at ff6d4d1),
// plus the example check of SupervisedDatasetProcessor.preprocess_dataset.
#include "core/frameworks/llamafactory/LlamaFactoryRows.h"
#include "core/frameworks/llamafactory/LlamaFactoryTools.h"

#include "core/data/ContentParts.h"
#include "core/util/Error.h"

namespace maskscope::llamafactory {

namespace {

// example[column] as HF datasets gives it: null when the row lacks the column.
const OrderedJson& column(const OrderedJson& row, const std::string& name) {
  static const OrderedJson null;
  if (name.empty() || !row.is_object()) return null;
  auto it = row.find(name);
  return it == row.end() ? null : *it;
}

std::string stringOrEmpty(const OrderedJson& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

// Python truthiness of a column value.
bool truthy(const OrderedJson& v) {
  if (v.is_null()) return false;
  if (v.is_string()) return !v.get_ref<const std::string&>().empty(); // json::empty() is false for strings
  if (v.is_array() || v.is_object()) return !v.empty();
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  return true;
}

// The formatter only takes strings (StringFormatter raises "Expected a string").
std::string requireString(const OrderedJson& v, const std::string& what) {
  if (!v.is_string()) throw Error(what + " is " + std::string(v.type_name()) + ", not a string");
  return v.get<std::string>();
}

// example[tools] as the converters pass it on: LLaMA-Factory's _tools column is a string (datasets
// fails to cast a list or an object into it; the openai converter dumps them first, see below).
std::string toolsColumn(const OrderedJson& row, const DatasetFormat& f) {
  const OrderedJson& tools = column(row, f.tools);
  if (tools.is_null() || tools.is_string()) return stringOrEmpty(tools);
  throw Error("the tools column \"" + f.tools + "\" is " + std::string(tools.type_name()) +
              ", not a JSON string (LLaMA-Factory's sharegpt/alpaca _tools column is a string; formatting openai "
              "dumps lists)");
}

// _find_medias: None stays None, a single value becomes a list, an empty list None; each image an object
// with its size (the files LLaMA-Factory opens are not read).
std::vector<LfImage> imagesColumn(const OrderedJson& row, const DatasetFormat& f) {
  const OrderedJson& v = column(row, f.images);
  std::vector<LfImage> out;
  if (v.is_null()) return out;
  const OrderedJson list = v.is_array() ? v : OrderedJson::array({v});
  for (const OrderedJson& e : list) {
    if (!e.is_object() || !e.contains("width") || !e.contains("height") || !e["width"].is_number_integer() ||
        !e["height"].is_number_integer())
      throw Error("an image of column " + f.images +
                  " is not {\"width\": W, \"height\": H}: maskscope never opens image files, give each image's size "
                  "(a \"path\" may stay beside it)");
    const int64_t w = e["width"].get<int64_t>(), h = e["height"].get<int64_t>();
    if (w < 1 || h < 1 || w > kMaxImageSide || h > kMaxImageSide)
      throw Error("an image of " + std::to_string(w) + "x" + std::to_string(h) + " pixels: sides must be in [1, " +
                  std::to_string(kMaxImageSide) + "]");
    out.push_back({w, h});
  }
  return out;
}

// The media columns every converter passes on (_images; _videos and _audios are refused later).
void readMedia(LfExample& ex, const OrderedJson& row, const DatasetFormat& f) {
  ex.images = imagesColumn(row, f);
  for (const char* name : {"videos", "audios"}) {
    const OrderedJson& v = column(row, name);
    ex.videosOrAudios = ex.videosOrAudios || (v.is_array() ? !v.empty() : !v.is_null());
  }
}

LfExample alpaca(const OrderedJson& row, const DatasetFormat& f) {
  LfExample ex;
  if (!f.history.empty() && column(row, f.history).is_array()) {
    for (const OrderedJson& pair : column(row, f.history)) {
      if (!pair.is_array() || pair.size() != 2) throw Error("history entries must be [prompt, response] pairs");
      ex.prompt.push_back({"user", requireString(pair[0], "a history prompt")});
      ex.prompt.push_back({"assistant", requireString(pair[1], "a history response")});
    }
  }
  std::string query;
  bool first = true;
  for (const std::string* name : {&f.prompt, &f.query}) {
    const OrderedJson& v = column(row, *name);
    if (name->empty() || !truthy(v)) continue;
    query += (first ? "" : "\n") + requireString(v, "column " + *name); // "\n".join(query)
    first = false;
  }
  ex.prompt.push_back({"user", query});
  if (const OrderedJson& r = column(row, f.response); !f.response.empty() && r.is_string())
    ex.response.push_back({"assistant", r.get<std::string>()});
  ex.system = stringOrEmpty(column(row, f.system));
  ex.tools = toolsColumn(row, f);
  readMedia(ex, row, f);
  return ex;
}

std::string roleOf(const DatasetFormat& f, const std::string& tag) {
  // tag_mapping is a dict built in this order; a tag named twice keeps the last role.
  std::string role;
  const std::pair<const std::string*, const char*> map[] = {{&f.userTag, "user"},
                                                            {&f.assistantTag, "assistant"},
                                                            {&f.observationTag, "observation"},
                                                            {&f.functionTag, "function"},
                                                            {&f.systemTag, "system"}};
  for (const auto& [t, r] : map)
    if (*t == tag) role = r;
  return role;
}

struct RawMessage {
  std::string tag;
  OrderedJson content, toolCalls; // toolCalls: message.get("tool_calls") (the openai converter reads it)
};

std::vector<RawMessage> rawMessages(const OrderedJson& row, const DatasetFormat& f) {
  const OrderedJson& list = column(row, f.messages);
  if (!list.is_array()) throw Error("column " + f.messages + " is not a list of messages");
  std::vector<RawMessage> out;
  for (const OrderedJson& m : list) {
    if (!m.is_object() || !m.contains(f.roleTag) || !m[f.roleTag].is_string())
      throw Error("a message has no string \"" + f.roleTag + "\"");
    out.push_back({m[f.roleTag].get<std::string>(), m.contains(f.contentTag) ? m[f.contentTag] : OrderedJson(),
                   m.contains("tool_calls") ? m["tool_calls"] : OrderedJson()});
  }
  return out;
}

// The shared tail of the sharegpt/openai converters: alternation check, then prompt + last response.
ConvertedRow alignAndSplit(const std::vector<std::pair<std::string, OrderedJson>>& messages, std::string system,
                           const OrderedJson& row, const DatasetFormat& f, bool byRoleName) {
  const std::string odd[] = {byRoleName ? "user" : f.userTag, byRoleName ? "observation" : f.observationTag};
  const std::string even[] = {byRoleName ? "assistant" : f.assistantTag, byRoleName ? "function" : f.functionTag};
  LfExample ex;
  std::vector<LfMessage> aligned;
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string& tag = messages[i].first;
    const auto& accept = i % 2 == 0 ? odd : even;
    if (tag != accept[0] && tag != accept[1])
      return {std::nullopt,
              "Invalid role tag (" + tag + " at message " + std::to_string(i) + "); skipping this example"};
    aligned.push_back({byRoleName ? tag : roleOf(f, tag), requireString(messages[i].second, "a message's content")});
  }
  if (aligned.size() % 2 != 0) return {std::nullopt, "Invalid message count (odd); skipping this example"};
  if (!aligned.empty()) {
    ex.prompt.assign(aligned.begin(), aligned.end() - 1);
    ex.response.assign(aligned.end() - 1, aligned.end());
  }
  ex.system = std::move(system);
  if (!byRoleName) ex.tools = toolsColumn(row, f); // the openai converter reads them itself
  readMedia(ex, row, f);
  return {ex, {}};
}

// OpenAIDatasetConverter's tail: a tools list or dict dumped to a string, and "detailed thinking off"
// added to the system prompt of rows without tools (converter.py at ff6d4d1 does it for every row).
void openaiToolsAndSystem(LfExample& ex, const OrderedJson& row, const DatasetFormat& f) {
  const OrderedJson& tools = column(row, f.tools);
  if (tools.is_array() || tools.is_object()) {
    ex.tools = pyJsonDumps(tools);
  } else if (!tools.is_null() && !tools.is_string()) {
    throw Error("the tools column is " + std::string(tools.type_name()) + " (LLaMA-Factory's json.loads fails on it)");
  }
  const std::string shortPrompt = "detailed thinking off";
  if (ex.system.empty()) {
    if (ex.tools.empty()) ex.system = shortPrompt;
  } else if (ex.tools.empty()) {
    if (ex.system.find("detailed thinking on") == std::string::npos && ex.system.find(shortPrompt) == std::string::npos)
      ex.system += "\n" + shortPrompt;
  } else {
    ex.system += "\n";
  }
}

ConvertedRow sharegpt(const OrderedJson& row, const DatasetFormat& f, bool openai) {
  std::vector<RawMessage> raw = rawMessages(row, f);
  std::string system;
  size_t start = 0;
  if (!f.systemTag.empty() && !raw.empty() && raw[0].tag == f.systemTag) {
    system = requireString(raw[0].content, "the system message's content");
    start = 1;
  } else {
    system = stringOrEmpty(column(row, f.system));
  }
  std::vector<std::pair<std::string, OrderedJson>> messages;
  if (!openai) {
    for (size_t i = start; i < raw.size(); ++i) messages.emplace_back(raw[i].tag, raw[i].content);
    return alignAndSplit(messages, system, row, f, false);
  }
  // OpenAI: an assistant (or function) message with tool_calls becomes a function message holding
  // json.dumps([call["function"] for call in tool_calls]); consecutive tool messages join into one
  // observation (tool messages after the last other message are lost, as upstream).
  std::vector<std::string> toolResponses;
  for (size_t i = start; i < raw.size(); ++i) {
    if ((raw[i].tag == f.assistantTag || raw[i].tag == f.functionTag) && truthy(raw[i].toolCalls)) {
      if (!raw[i].toolCalls.is_array()) throw Error("tool_calls is not a list (LLaMA-Factory fails on it)");
      OrderedJson functions = OrderedJson::array();
      for (const OrderedJson& call : raw[i].toolCalls) {
        if (!call.is_object() || !call.contains("function"))
          throw Error("a tool call has no \"function\" (LLaMA-Factory raises KeyError)");
        functions.push_back(call["function"]);
      }
      raw[i].content = pyJsonDumps(functions);
      raw[i].tag = f.functionTag;
    }
    if (raw[i].tag == f.observationTag) {
      toolResponses.push_back(requireString(raw[i].content, "a tool message's content"));
      continue;
    }
    if (!toolResponses.empty()) {
      std::string joined;
      for (size_t k = 0; k < toolResponses.size(); ++k)
        joined += (k ? "\n</tool_response>\n<tool_response>\n" : "") + toolResponses[k];
      messages.emplace_back("observation", joined);
      toolResponses.clear();
    }
    const std::string role = roleOf(f, raw[i].tag);
    if (role.empty()) throw Error("role " + raw[i].tag + " is none of the dataset's tags (LLaMA-Factory: KeyError)");
    messages.emplace_back(role, raw[i].content);
  }
  ConvertedRow out = alignAndSplit(messages, system, row, f, true);
  if (out.example) openaiToolsAndSystem(*out.example, row, f);
  return out;
}

} // namespace

DatasetFormat inferDatasetFormat(const OrderedJson& row) {
  DatasetFormat f;
  const bool tools = row.is_object() && row.contains("tools");
  if (row.is_object() && row.contains("images")) f.images = "images"; // as data/dataset_info.json's mllm_demo
  if (row.is_object() && row.contains("messages") && !row.contains("conversations")) {
    // tool_calls are read by the openai converter only (the sharegpt one keeps the empty content).
    bool calls = tools;
    if (row["messages"].is_array())
      for (const OrderedJson& m : row["messages"]) calls = calls || (m.is_object() && m.contains("tool_calls"));
    f.formatting = calls ? "openai" : "sharegpt";
    if (tools) f.tools = "tools";
    f.messages = "messages";
    f.roleTag = "role";
    f.contentTag = "content";
    f.userTag = "user";
    f.assistantTag = "assistant";
    f.observationTag = "tool";
    f.systemTag = "system";
  } else if (row.is_object() && row.contains("conversations")) {
    f.formatting = "sharegpt";
    if (tools) f.tools = "tools"; // data/README.md's sharegpt declaration names the tools column
  }
  return f;
}

void applyDatasetInfo(DatasetFormat& f, const OrderedJson& formatting, const OrderedJson& columns,
                      const OrderedJson& tags) {
  if (!formatting.is_null()) {
    if (!formatting.is_string() || (formatting != "alpaca" && formatting != "sharegpt" && formatting != "openai"))
      throw Error("formatting must be \"alpaca\", \"sharegpt\" or \"openai\"", {.field = "formatting"});
    f.formatting = formatting.get<std::string>();
  }
  auto apply = [](const OrderedJson& obj, const char* what,
                  std::initializer_list<std::pair<const char*, std::string*>> keys) {
    if (obj.is_null()) return;
    if (!obj.is_object()) throw Error(std::string(what) + " must be an object", {.field = what});
    for (const auto& [k, v] : obj.items()) {
      std::string* target = nullptr;
      std::string known;
      for (const auto& [name, slot] : keys) {
        known += (known.empty() ? "" : ", ") + std::string(name);
        if (k == name) target = slot;
      }
      if (!target) throw Error("unknown key " + k + " (known: " + known + ")", {.field = std::string(what) + "." + k});
      if (!v.is_string() && !v.is_null())
        throw Error("must be a string or null", {.field = std::string(what) + "." + k});
      *target = v.is_string() ? v.get<std::string>() : std::string();
    }
  };
  apply(columns, "columns",
        {{"prompt", &f.prompt},
         {"query", &f.query},
         {"response", &f.response},
         {"history", &f.history},
         {"messages", &f.messages},
         {"system", &f.system},
         {"tools", &f.tools},
         {"images", &f.images}});
  apply(tags, "tags",
        {{"role_tag", &f.roleTag},
         {"content_tag", &f.contentTag},
         {"user_tag", &f.userTag},
         {"assistant_tag", &f.assistantTag},
         {"observation_tag", &f.observationTag},
         {"function_tag", &f.functionTag},
         {"system_tag", &f.systemTag}});
}

ConvertedRow convertRow(const OrderedJson& row, const DatasetFormat& format) {
  if (!row.is_object()) return {std::nullopt, "the row is not a JSON object"};
  ConvertedRow out;
  try {
    out = format.formatting == "alpaca" ? ConvertedRow{alpaca(row, format), {}}
                                        : sharegpt(row, format, format.formatting == "openai");
  } catch (const Error& e) {
    return {std::nullopt, e.message()};
  }
  // SupervisedDatasetProcessor: an odd number of prompt messages and exactly one response.
  if (out.example && (out.example->prompt.size() % 2 != 1 || out.example->response.size() != 1))
    return {std::nullopt, out.dropped.empty() ? "Dropped invalid example (the prompt needs an odd number of messages "
                                                "and one response)"
                                              : out.dropped};
  return out;
}

} // namespace maskscope::llamafactory
