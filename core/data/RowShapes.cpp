// The four dataset row shapes (docs/cli.md, Datasets), mapped to one Conversation:
// messages (no_robots), prompt/completion (TRL: strings or message lists), ShareGPT, Alpaca.
#include "core/data/RowShapes.h"
#include "core/data/ContentParts.h"
#include "core/util/Error.h"

namespace maskscope {

namespace {

using json = OrderedJson;

// The text of a content; a list's text parts joined. Image parts (ContentParts.h) are checked for
// their size and counted in *images (video parts too); where images is null (ShareGPT values) they
// are refused.
std::string contentText(const json& content, const std::string& where, int* images = nullptr) {
  if (content.is_string()) return content.get<std::string>();
  if (content.is_null()) return {};
  if (content.is_array()) { // multimodal form: [{"type": "text", "text": ...}, ...]
    std::string text;
    for (size_t i = 0; i < content.size(); ++i) {
      const json& part = content[i];
      const std::string at = where + ".content[" + std::to_string(i) + "]";
      const bool video = !isImagePart(part) && isVideoPart(part);
      if (isImagePart(part) || video) {
        if (!images) throw Error(at + (video ? ": video" : ": image") + " parts are read in \"messages\" rows only");
        if (video)
          videoPartOf(part, at);
        else
          imagePartOf(part, at);
        ++*images;
        continue;
      }
      if (part.is_object() && part.contains("text") && part["text"].is_string())
        text += part["text"].get<std::string>();
      else if (part.is_string())
        text += part.get<std::string>();
      else
        throw Error(where + ": content part is neither text nor a {\"type\": \"text\"} object");
    }
    return text;
  }
  throw Error(where + ": content is " + std::string(content.type_name()) + ", not a string");
}

std::vector<Message> messagesFrom(const json& list, const char* field) {
  if (!list.is_array()) throw Error(std::string("\"") + field + "\" is not a list");
  std::vector<Message> out;
  int rowImages = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& m = list[i];
    std::string where = std::string(field) + "[" + std::to_string(i) + "]";
    if (!m.is_object()) throw Error(where + " is not an object");
    if (!m.contains("role")) throw Error(where + " has no \"role\"");
    if (!m["role"].is_string()) throw Error(where + ": role is not a string");
    Message msg;
    msg.role = m["role"].get<std::string>();
    if (msg.role.empty()) throw Error(where + ": role is empty");
    if (!m.contains("content") && !m.contains("tool_calls")) throw Error(where + " has no \"content\"");
    int images = 0;
    msg.content = m.contains("content") ? contentText(m["content"], where, &images) : std::string();
    json extra = json::object();
    rowImages += images;
    // A null or absent content (an assistant turn that only calls tools) reaches the template as
    // None, as a datasets row does: templates test `message.content is none` or `if message.content`.
    if (!m.contains("content") || m["content"].is_null()) extra["content"] = nullptr;
    for (auto it = m.begin(); it != m.end(); ++it)
      if (it.key() != "role" && it.key() != "content") extra[it.key()] = it.value();
    if (!extra.empty()) msg.extra = std::move(extra);
    out.push_back(std::move(msg));
  }
  // In a row with images every list content reaches the template as the list of parts, as
  // transformers passes it (the template writes each image's placeholder; LLaVA's reads every
  // message as a list); a text-only row's lists stay joined into strings.
  if (rowImages > 0)
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i].contains("content") && list[i]["content"].is_array()) {
        if (!out[i].extra.is_object()) out[i].extra = json::object();
        out[i].extra["content"] = list[i]["content"];
      }
  return out;
}

std::string shareGptRole(const std::string& from) {
  if (from == "human" || from == "user") return "user";
  if (from == "gpt" || from == "assistant" || from == "chatgpt" || from == "model" || from == "bard" || from == "bing")
    return "assistant";
  if (from == "system") return "system";
  if (from == "tool" || from == "function" || from == "function_call" || from == "observation") return "tool";
  return from;
}

const json& stringField(const json& row, const char* key) {
  const json& v = row[key];
  if (!v.is_string()) throw Error(std::string("\"") + key + "\" is not a string");
  return v;
}

void keepExtras(const json& row, Conversation& c, std::initializer_list<const char*> used) {
  json extra = json::object();
  for (auto it = row.begin(); it != row.end(); ++it) {
    bool isUsed = it.key() == "tools";
    for (const char* u : used) isUsed = isUsed || it.key() == u;
    if (!isUsed) extra[it.key()] = it.value();
  }
  if (!extra.empty()) c.extraVariables = std::move(extra);
  if (row.contains("tools") && !row["tools"].is_null()) c.tools = row["tools"];
}

} // namespace

std::vector<Message> messagesFromJson(const OrderedJson& list, const char* field) { return messagesFrom(list, field); }

const char* rowShapeName(RowShape s) {
  switch (s) {
  case RowShape::Messages:
    return "messages";
  case RowShape::PromptCompletionText:
    return "prompt/completion (text)";
  case RowShape::PromptCompletionMessages:
    return "prompt/completion (messages)";
  case RowShape::ShareGpt:
    return "ShareGPT";
  case RowShape::Alpaca:
    return "Alpaca";
  }
  return "?";
}

Conversation conversationFromJson(const OrderedJson& row) {
  if (!row.is_object()) throw Error("row is " + std::string(row.type_name()) + ", not a JSON object");
  Conversation c;
  if (row.contains("messages")) {
    c.shape = RowShape::Messages;
    c.messages = messagesFrom(row["messages"], "messages");
    keepExtras(row, c, {"messages"});
  } else if (row.contains("prompt") && row.contains("completion")) {
    const json& p = row["prompt"];
    const json& k = row["completion"];
    if (p.is_string() && k.is_string()) {
      c.shape = RowShape::PromptCompletionText;
      c.plainText = true;
      c.plainPrompt = p.get<std::string>();
      c.plainCompletion = k.get<std::string>();
    } else if (p.is_array() && k.is_array()) {
      c.shape = RowShape::PromptCompletionMessages;
      c.messages = messagesFrom(p, "prompt");
      c.promptMessageCount = int(c.messages.size());
      auto completion = messagesFrom(k, "completion");
      c.messages.insert(c.messages.end(), completion.begin(), completion.end());
    } else {
      throw Error("\"prompt\" and \"completion\" must both be strings or both be message lists");
    }
    keepExtras(row, c, {"prompt", "completion"});
  } else if (row.contains("conversations")) {
    c.shape = RowShape::ShareGpt;
    const json& list = row["conversations"];
    if (!list.is_array()) throw Error("\"conversations\" is not a list");
    for (size_t i = 0; i < list.size(); ++i) {
      const json& m = list[i];
      std::string where = "conversations[" + std::to_string(i) + "]";
      if (!m.is_object() || !m.contains("from") || !m["from"].is_string())
        throw Error(where + " has no string \"from\"");
      if (!m.contains("value")) throw Error(where + " has no \"value\"");
      c.messages.push_back({shareGptRole(m["from"].get<std::string>()), contentText(m["value"], where), nullptr});
    }
    keepExtras(row, c, {"conversations"});
    if (row.contains("system") && row["system"].is_string() && !row["system"].get<std::string>().empty())
      c.messages.insert(c.messages.begin(), Message{"system", row["system"].get<std::string>(), nullptr});
  } else if (row.contains("instruction") && row.contains("output")) {
    c.shape = RowShape::Alpaca;
    std::string user = stringField(row, "instruction").get<std::string>();
    if (row.contains("input") && !row["input"].is_null()) {
      std::string input = stringField(row, "input").get<std::string>();
      if (!input.empty()) user += "\n\n" + input;
    }
    if (row.contains("system") && row["system"].is_string() && !row["system"].get<std::string>().empty())
      c.messages.push_back({"system", row["system"].get<std::string>(), nullptr});
    c.messages.push_back({"user", user, nullptr});
    c.messages.push_back({"assistant", stringField(row, "output").get<std::string>(), nullptr});
    c.promptMessageCount = int(c.messages.size()) - 1;
    keepExtras(row, c, {"instruction", "input", "output", "system"});
  } else {
    throw Error(row.contains("chosen") && row.contains("rejected")
                    ? "a preference row (\"chosen\"/\"rejected\") among rows of another shape: a dataset is read as "
                      "preference data when its first row is one"
                    : "row has none of \"messages\", \"prompt\"+\"completion\", \"conversations\" or "
                      "\"instruction\"+\"output\" (nor \"chosen\"+\"rejected\")");
  }
  if (!c.plainText && c.messages.empty()) throw Error("row has no messages");
  return c;
}

} // namespace maskscope
