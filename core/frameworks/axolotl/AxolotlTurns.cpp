// Axolotl's conversation thread (see AxolotlTurns.h), from src/axolotl/prompt_strategies/
// chat_template.py at v0.18.0. One deliberate difference: Axolotl keeps a message's unmapped keys
// only when its JinjaTemplateAnalyzer sees the template read them; here every unmapped key is kept
// (a key the template does not read cannot change the render, so the text is the same unless the
// template reads a key in a way the analyzer misses).
#include "core/frameworks/axolotl/AxolotlTurns.h"
#include "core/frameworks/pytext/PythonText.h"
#include "core/util/Error.h"
#include "core/util/JsonParse.h"
#include "core/util/Utf8.h"

#include <algorithm>

namespace maskscope::axolotl {

namespace {

// JSON text inside a row (messages or tools stored as a string): parsed with the depth-limited reader.
OrderedJson parseEmbedded(const std::string& text, const char* what) {
  std::string error;
  OrderedJson v = parseOrderedJsonOrExplain(text, &error);
  if (!error.empty()) throw Error(std::string("error parsing ") + what + " as JSON: " + error);
  return v;
}

// split_thinking: the first thinking pair present moves into the reasoning key (stripped), and the
// rest (or the solution block inside it) becomes the content.
void splitThinking(OrderedJson& t, const std::string& thinkingKey) {
  if (!t.contains("content")) throw Error("KeyError: 'content' (split_thinking on an assistant turn without content)");
  if (!t["content"].is_string()) return; // `"<think>" in content` is False for a list
  const std::string content = t["content"].get<std::string>();
  static const std::pair<std::string, std::string> kThinking[] = {
      {"<think>", "</think>"}, {"<reasoning>", "</reasoning>"}, {"<|begin_of_thought|>", "<|end_of_thought|>"}};
  static const std::pair<std::string, std::string> kSolution = {"<|begin_of_solution|>", "<|end_of_solution|>"};
  auto slice = [](const std::string& s, size_t b, size_t e) {
    return b >= e || b >= s.size() ? std::string() : s.substr(b, e - b);
  };
  for (const auto& [open, close] : kThinking) {
    if (content.find(open) == std::string::npos || content.find(close) == std::string::npos) continue;
    const size_t ts = content.find(open), te = content.find(close);
    t[thinkingKey] = pytext::strip(slice(content, ts + open.size(), te));
    const std::string remainder = pytext::lstrip(slice(content, te + close.size(), content.size()));
    const size_t cs = remainder.find(kSolution.first), ce = remainder.find(kSolution.second);
    if (cs != std::string::npos && ce != std::string::npos)
      t["content"] = pytext::strip(slice(remainder, cs + kSolution.first.size(), ce));
    else
      t["content"] = remainder;
    return;
  }
}

// tool_calls[i].function.arguments given as a JSON string -> the parsed value.
void parseToolCallArguments(OrderedJson& t) {
  auto it = t.find("tool_calls");
  if (it == t.end() || !pythonTruthy(*it) || !it->is_array()) return;
  for (auto& call : *it) {
    if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) continue;
    auto& fn = call["function"];
    if (fn.contains("arguments") && fn["arguments"].is_string())
      fn["arguments"] = parseEmbedded(fn["arguments"].get<std::string>(), "tool_calls arguments");
  }
}

OrderedJson transformMessage(const OrderedJson& message, const ThreadOptions& o) {
  if (!message.is_object()) throw Error("each message must be a JSON object");
  const AxolotlConfig& c = *o.config;
  OrderedJson t = OrderedJson::object();
  for (const auto& [key, value] : c.messagePropertyMappings) {
    auto v = message.find(value);
    if (v != message.end() && !v->is_null()) t[key] = *v;
  }
  if (t.contains("role") && t["role"].is_string()) t["role"] = mapRole(o, t["role"].get<std::string>());
  if (c.splitThinking) {
    if (!t.contains("role")) throw Error("KeyError: 'role' (a message has no role after message_property_mappings)");
    if (t["role"] == "assistant") splitThinking(t, c.templateThinkingKey);
  }
  for (auto it = message.begin(); it != message.end(); ++it) {
    const bool mapped = std::any_of(c.messagePropertyMappings.begin(), c.messagePropertyMappings.end(),
                                    [&](const auto& p) { return p.second == it.key(); });
    if (!mapped && !it->is_null()) t[it.key()] = *it;
  }
  parseToolCallArguments(t);
  return t;
}

// _convert_content_parts: list content -> (joined text, per-part details when a part says train/weight).
bool convertContentParts(OrderedJson& turn, const std::string& key, const char* detailKey) {
  auto it = turn.find(key);
  if (it == turn.end() || !it->is_array()) return false;
  std::string joined;
  OrderedJson details = OrderedJson::array();
  bool explicitTraining = false;
  int64_t offset = 0;
  for (const auto& part : *it) {
    if (!part.is_object()) continue;
    std::string text;
    for (const char* k : {"text", "content", "value"}) {
      auto p = part.find(k);
      if (p == part.end() || !pythonTruthy(*p)) continue;
      if (!p->is_string()) throw Error(std::string("a content part's \"") + k + "\" must be a string");
      text = p->get<std::string>();
      break;
    }
    joined += text;
    const auto train = part.find("train"), weight = part.find("weight");
    const bool hasTrain = train != part.end() && !train->is_null();
    const bool hasWeight = weight != part.end() && !weight->is_null();
    bool trainFlag = true; // default trainable, gated by the turn's should_train
    if (hasTrain || hasWeight) {
      explicitTraining = true;
      trainFlag = hasTrain ? pythonTruthy(*train) : !(weight->is_number() && weight->get<double>() == 0.0);
    }
    if (!text.empty()) {
      const int64_t n = pythonLength(text);
      details.push_back({{"begin_offset", offset}, {"end_offset", offset + n - 1}, {"train", trainFlag}});
      offset += n;
    }
  }
  turn[key] = joined;
  if (explicitTraining) turn[detailKey] = details;
  return true;
}

} // namespace

bool pythonTruthy(const OrderedJson& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_string() || v.is_array() || v.is_object()) return !v.empty();
  return true;
}

int64_t pythonLength(const std::string& s) {
  int64_t n = 0;
  for (size_t pos = 0; pos < s.size(); ++n) utf8::decode(s, pos);
  return n;
}

OrderedJson removeNoneValues(const OrderedJson& v) {
  if (v.is_object()) {
    OrderedJson out = OrderedJson::object();
    for (auto it = v.begin(); it != v.end(); ++it)
      if (!it->is_null()) out[it.key()] = removeNoneValues(*it);
    return out;
  }
  if (v.is_array()) {
    OrderedJson out = OrderedJson::array();
    for (const auto& e : v) out.push_back(removeNoneValues(e));
    return out;
  }
  return v;
}

ThreadOptions threadOptions(const AxolotlConfig& config) {
  ThreadOptions o;
  o.config = &config;
  if (config.roles) {
    for (const auto& [target, sources] : *config.roles)
      for (const auto& s : sources) o.roleMap.emplace_back(s, target);
  } else {
    o.roleMap = {{"human", "user"},    {"user", "user"},     {"assistant", "assistant"},
                 {"gpt", "assistant"}, {"system", "system"}, {"tool", "tool"}};
  }
  return o;
}

std::string mapRole(const ThreadOptions& options, const std::string& role) {
  // {s: t for t, sources in roles.items() for s in sources}: a later target wins for a repeated source
  std::string out = role;
  for (const auto& [s, t] : options.roleMap)
    if (s == role) out = t;
  return out;
}

std::vector<OrderedJson> conversationThread(const OrderedJson& row, const ThreadOptions& o) {
  const AxolotlConfig& c = *o.config;
  OrderedJson messages = row.contains(c.fieldMessages) ? row[c.fieldMessages] : OrderedJson();
  if (messages.is_null()) throw Error("Messages is null. Please check `field_messages` (\"" + c.fieldMessages + "\").");
  if (messages.is_string()) {
    messages = parseEmbedded(messages.get<std::string>(), "messages");
    if (!messages.is_array()) throw Error("messages stored as a string must hold a list of objects");
    for (const auto& m : messages)
      if (!m.is_object()) throw Error("messages stored as a string must hold a list of objects");
  }
  if (!messages.is_array()) throw Error("Unknown messages format. Please convert it into a list[dict].");
  if (messages.empty()) throw Error("the row's message list is empty (Axolotl fails with IndexError)");
  // find_turn renders the conversation up to each trained turn twice: quadratic in the turns
  if (messages.size() > kMaxAxolotlTurns)
    throw Error("the row has " + std::to_string(messages.size()) + " messages, over the limit of " +
                std::to_string(kMaxAxolotlTurns) + " (Axolotl renders the conversation twice per trained turn)");
  std::vector<OrderedJson> turns;
  const OrderedJson first = transformMessage(messages[0], o);
  if (!first.contains("role")) throw Error("KeyError: 'role' (the first message has no role)");
  if (first["role"] != "system" && row.contains("system"))
    turns.push_back(OrderedJson{{"role", "system"}, {"content", row["system"]}});
  for (const auto& message : messages) {
    OrderedJson turn = transformMessage(message, o);
    if (c.messageFieldTraining) {
      auto tr = message.find(*c.messageFieldTraining);
      if (tr != message.end() && !tr->is_null()) turn["training"] = *tr;
    }
    if (c.messageFieldTrainingDetail) {
      auto td = message.find(*c.messageFieldTrainingDetail);
      if (td != message.end() && !td->is_null()) turn["training_detail"] = *td;
    }
    convertContentParts(turn, "content", "training_detail");
    if (turn.contains(c.templateThinkingKey))
      convertContentParts(turn, c.templateThinkingKey, "reasoning_training_detail");
    turns.push_back(std::move(turn));
  }
  if (c.dropSystemMessage && turns[0].contains("role") && turns[0]["role"] == "system") turns.erase(turns.begin());
  return turns;
}

OrderedJson rowTools(const OrderedJson& row) {
  auto it = row.find("tools");
  if (it == row.end() || it->is_null()) return nullptr;
  OrderedJson tools = it->is_string() ? parseEmbedded(it->get<std::string>(), "tools") : *it;
  if (!tools.is_array()) throw Error("Unknown tools format. Please convert it into a list[dict].");
  for (auto& tool : tools) {
    if (!tool.is_object() || !tool.contains("function") || !tool["function"].is_object()) continue;
    auto& fn = tool["function"];
    if (fn.contains("parameters") && fn["parameters"].is_string())
      fn["parameters"] = parseEmbedded(fn["parameters"].get<std::string>(), "tool parameters");
  }
  return tools;
}

std::vector<TrainDetail> trainDetails(const OrderedJson& detail, const char* key) {
  if (!detail.is_array()) throw Error(std::string(key) + " must be a list of {begin_offset, end_offset, train}");
  std::vector<TrainDetail> out;
  for (const auto& d : detail) {
    if (!d.is_object() || !d.contains("begin_offset") || !d.contains("end_offset") || !d.contains("train") ||
        !d["begin_offset"].is_number_integer() || !d["end_offset"].is_number_integer())
      throw Error(std::string(key) + " entries need integer begin_offset, end_offset and a train flag");
    out.push_back({d["begin_offset"].get<int64_t>(), d["end_offset"].get<int64_t>(), pythonTruthy(d["train"])});
  }
  return out;
}

} // namespace maskscope::axolotl
