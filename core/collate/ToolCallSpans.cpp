// Tool-call spans in a rendered conversation (ToolCallSpans.h): found inside each assistant block
// that has tool_calls, by the markers of the template family, else as the JSON object Llama writes.
#include "core/collate/ToolCallSpans.h"

#include "core/data/ToolNames.h"

#include <map>
#include <string_view>

namespace maskscope {

namespace {

bool isAssistantRole(const std::string& role) { return role == "assistant" || role == "model" || role == "gpt"; }
bool isToolRole(const std::string& role) { return role == "tool" || role == "ipython" || role == "function"; }

std::string stringField(const OrderedJson& o, const char* key) {
  if (!o.is_object()) return {};
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// End (exclusive) of the balanced JSON object or list opening at text[open], strings skipped;
// npos when it does not close before `limit`.
size_t balancedEnd(std::string_view text, size_t open, size_t limit) {
  int depth = 0;
  bool inString = false;
  for (size_t i = open; i < limit; ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

std::string joined(const std::vector<std::string>& names, size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to && i < names.size(); ++i) s += (s.empty() ? "" : ",") + names[i];
  return s;
}

// The spans of one assistant block [b, e) whose message calls `names`.
void spansInBlock(std::string_view text, int message, int64_t b, int64_t e, int64_t contentEnd,
                  const std::vector<std::string>& names, std::vector<ToolCallSpan>& out) {
  static constexpr std::string_view kOpen = "<tool_call>", kClose = "</tool_call>", kMistral = "[TOOL_CALLS]";
  const std::string_view block = text.substr(size_t(b), size_t(e - b));
  size_t k = 0;
  for (size_t at = block.find(kOpen); at != std::string_view::npos; at = block.find(kOpen, at)) {
    const size_t close = block.find(kClose, at);
    const size_t end = close == std::string_view::npos ? block.size() : close + kClose.size();
    out.push_back({message, {b + int64_t(at), b + int64_t(end)}, joined(names, k, k + 1)});
    ++k;
    at = end;
  }
  if (k > 0) return;
  if (size_t at = block.find(kMistral); at != std::string_view::npos) {
    const size_t list = block.find('[', at + kMistral.size());
    size_t end = list == std::string_view::npos ? std::string_view::npos : balancedEnd(block, list, block.size());
    if (end == std::string_view::npos) end = block.size();
    out.push_back({message, {b + int64_t(at), b + int64_t(end)}, joined(names, 0, names.size())});
    return;
  }
  // Llama 3.1/3.2: {"name": ..., "parameters": ...} after the content (or the header), one per call.
  size_t from = size_t(std::max<int64_t>(contentEnd, b) - b);
  for (k = 0; k < names.size(); ++k) {
    const size_t open = block.find('{', from);
    if (open == std::string_view::npos) return;
    const size_t end = balancedEnd(block, open, block.size());
    if (end == std::string_view::npos) return;
    const std::string_view object = block.substr(open, end - open);
    if (object.find("\"" + names[k] + "\"") == std::string_view::npos) return; // not this call: not rendered
    out.push_back({message, {b + int64_t(open), b + int64_t(end)}, names[k]});
    from = end;
  }
}

} // namespace

bool messageHasToolCalls(const Message& m) {
  if (!m.extra.is_object()) return false;
  auto it = m.extra.find("tool_calls");
  return it != m.extra.end() && it->is_array() && !it->empty();
}

std::vector<std::string> toolCallNames(const Message& m) {
  std::vector<std::string> names;
  if (!messageHasToolCalls(m)) return names;
  for (const OrderedJson& call : m.extra["tool_calls"]) {
    const OrderedJson* fn = &call;
    if (call.is_object() && call.contains("function") && call["function"].is_object()) fn = &call["function"];
    names.push_back(fn->is_object() && fn->contains("name") && (*fn)["name"].is_string()
                        ? (*fn)["name"].get<std::string>()
                        : std::string());
  }
  return names;
}

std::vector<std::string> toolOutputNames(const std::vector<Message>& messages) {
  std::vector<std::string> out(messages.size());
  std::map<std::string, std::string> byId; // call id -> function name, of the calls so far
  std::vector<std::string> pending;        // the last assistant message's calls, in order
  size_t next = 0;                         // the call the next tool message answers by place
  for (size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    if (isToolRole(m.role)) {
      std::string name = stringField(m.extra, "name");
      if (const std::string id = stringField(m.extra, "tool_call_id"); name.empty() && byId.count(id)) name = byId[id];
      if (name.empty() && next < pending.size()) name = pending[next];
      ++next;
      out[i] = name;
      continue;
    }
    if (!messageHasToolCalls(m)) continue;
    pending = toolCallNames(m);
    next = 0;
    size_t k = 0;
    for (const OrderedJson& call : m.extra["tool_calls"]) {
      if (const std::string id = stringField(call, "id"); !id.empty() && k < pending.size()) byId[id] = pending[k];
      ++k;
    }
  }
  return out;
}

std::vector<ToolCallSpan> findToolCallSpans(const std::string& text, const std::vector<MessageSpan>& spans,
                                            const std::vector<Message>& messages) {
  std::vector<ToolCallSpan> out;
  for (const MessageSpan& s : spans) {
    if (s.messageIndex < 0 || size_t(s.messageIndex) >= messages.size()) continue;
    const Message& m = messages[size_t(s.messageIndex)];
    if (!isAssistantRole(s.role) || !messageHasToolCalls(m) || s.block.empty() || s.block.end > int64_t(text.size()))
      continue;
    const int64_t contentEnd = s.content.empty() ? s.block.begin : s.content.end;
    spansInBlock(text, s.messageIndex, s.block.begin, s.block.end, contentEnd, toolCallNames(m), out);
  }
  return out;
}

std::vector<ToolCallSpan> markToolCallSpans(TokenizedConversation& conv, const std::vector<Message>& messages) {
  std::vector<ToolCallSpan> calls = findToolCallSpans(conv.text, conv.messages, messages);
  for (const ToolCallSpan& c : calls) {
    const uint16_t name = internToolName(c.name);
    for (TokenInfo& t : conv.tokens)
      if (!t.span.empty() && c.span.contains(t.span.begin) && t.messageIndex == c.messageIndex) {
        t.toolCall = true;
        t.scaffolding = false;
        t.toolName = name;
      }
  }
  const std::vector<std::string> outputs = toolOutputNames(messages);
  std::vector<uint16_t> ids(outputs.size(), 0);
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i].empty()) ids[i] = internToolName(outputs[i]);
  for (TokenInfo& t : conv.tokens)
    if (t.messageIndex >= 0 && size_t(t.messageIndex) < ids.size() && ids[size_t(t.messageIndex)])
      t.toolName = ids[size_t(t.messageIndex)];
  return calls;
}

} // namespace maskscope
