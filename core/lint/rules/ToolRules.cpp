// Tool-call rules: tool outputs in the loss, tool calls out of it, tools or calls the template
// never rendered, arguments of the type the template does not expect, and calls and responses that
// do not pair. Positions come from PositionKind::ToolCall / Tool (core/collate/ToolCallSpans.h).
#include "core/collate/ToolCallSpans.h"
#include "core/lint/LintRegistry.h"

#include <deque>
#include <map>

namespace maskscope {

namespace {

bool isPad(const RowInput& in, int64_t t) { return in.L.pad[size_t(t)] != 0; }

void toolOutputGraded(const RowInput& in) {
  if (!in.meta) return;
  int64_t total = 0, graded = 0, first = -1;
  for (int64_t t = 0; t < in.T; ++t) {
    if ((*in.meta)[size_t(t)].kind != PositionKind::Tool || isPad(in, t)) continue;
    ++total;
    if (!in.graded(t)) continue;
    ++graded;
    if (first < 0) first = t;
  }
  if (graded == 0) return;
  in.emit("tool-output-graded", first,
          in.label(first) + ": " + num(graded) + " of " + num(total) +
              " positions of tool outputs are graded, first at position " + num(first) +
              ": the model is trained to write what the tool returned");
}

void toolCallNotGraded(const RowInput& in) {
  if (!in.meta) return;
  std::map<int32_t, std::pair<int64_t, int64_t>> calls; // message -> (positions, graded)
  int64_t first = -1;
  bool replyGraded = false;
  for (int64_t t = 0; t < in.T; ++t) {
    const PositionMeta& pm = (*in.meta)[size_t(t)];
    if (isPad(in, t)) continue;
    if (pm.kind == PositionKind::Assistant && pm.reply && in.graded(t)) replyGraded = true;
    if (pm.kind != PositionKind::ToolCall) continue;
    auto& [n, g] = calls[pm.messageIndex];
    ++n;
    g += in.graded(t);
  }
  std::string which;
  int64_t ungraded = 0;
  for (const auto& [message, ng] : calls) {
    if (ng.second > 0) continue;
    ungraded += ng.first;
    which += std::string(which.empty() ? "" : ", ") + num(message);
    if (first < 0)
      for (int64_t t = 0; t < in.T && first < 0; ++t)
        if ((*in.meta)[size_t(t)].messageIndex == message && (*in.meta)[size_t(t)].kind == PositionKind::ToolCall)
          first = t;
  }
  if (which.empty() || !replyGraded) return; // nothing trained in this row: other rules say so
  in.emit("tool-call-not-graded", first,
          in.label(first) + ": the tool calls of message(s) " + which + " (" + num(ungraded) +
              " positions) are -100 while the row's replies are graded: the model never learns to call the tool");
}

// The tool names a row's "tools" list declares ({"type": "function", "function": {"name"}} or {"name"}).
std::vector<std::string> declaredToolNames(const OrderedJson& tools) {
  std::vector<std::string> names;
  if (!tools.is_array()) return names;
  for (const OrderedJson& t : tools) {
    const OrderedJson* fn = &t;
    if (t.is_object() && t.contains("function") && t["function"].is_object()) fn = &t["function"];
    if (fn->is_object() && fn->contains("name") && (*fn)["name"].is_string())
      names.push_back((*fn)["name"].get<std::string>());
  }
  return names;
}

std::optional<int64_t> firstTokenOf(const TokenizedConversation& enc, int message) {
  for (size_t t = 0; t < enc.tokens.size(); ++t)
    if (enc.tokens[t].messageIndex == message) return int64_t(t);
  return std::nullopt;
}

void toolsNotRendered(const ConversationInput& in) {
  if (!in.conversation || in.conversation->plainText) return;
  const Conversation& c = *in.conversation;
  const std::string& text = in.encoded.text;
  const std::vector<std::string> declared = declaredToolNames(c.tools);
  bool anyDeclared = false;
  for (const std::string& n : declared) anyDeclared = anyDeclared || text.find(n) != std::string::npos;
  if (!declared.empty() && !anyDeclared) {
    in.emit("tools-not-rendered", std::nullopt,
            in.label() + ": the row declares " + num(int64_t(declared.size())) + " tool(s) (" + declared.front() +
                (declared.size() > 1 ? ", ..." : "") +
                ") but none of their names is in the rendered text: the template ignores `tools`");
    return;
  }
  const std::vector<ToolCallSpan> spans = findToolCallSpans(text, in.encoded.messages, c.messages);
  for (size_t i = 0; i < c.messages.size(); ++i) {
    if (!messageHasToolCalls(c.messages[i])) continue;
    bool found = false;
    for (const ToolCallSpan& s : spans) found = found || s.messageIndex == int(i);
    if (found) continue;
    const std::vector<std::string> names = toolCallNames(c.messages[i]);
    in.emit("tools-not-rendered", firstTokenOf(in.encoded, int(i)),
            in.label() + ": message " + num(int64_t(i)) + " calls " + (names.empty() ? "a tool" : names.front()) +
                " but the rendered text holds no tool call there: the template drops `tool_calls`, so the model is "
                "trained on a reply without the call");
    return;
  }
}

// The arguments of one call, as the dataset wrote them.
const OrderedJson* argumentsOf(const OrderedJson& call) {
  const OrderedJson* fn = &call;
  if (call.is_object() && call.contains("function") && call["function"].is_object()) fn = &call["function"];
  if (!fn->is_object() || !fn->contains("arguments")) return nullptr;
  return &(*fn)["arguments"];
}

// A dict printed the way Python prints it ({'city': ...}): a template that concatenates arguments
// expecting a JSON string. Checks the first key.
bool printedAsPythonDict(const std::string& text, const OrderedJson& args) {
  if (!args.is_object() || args.empty()) return false;
  return text.find("{'" + args.begin().key() + "': ") != std::string::npos;
}

void toolArgumentsType(const ConversationInput& in) {
  if (!in.conversation || in.conversation->plainText) return;
  const Conversation& c = *in.conversation;
  for (size_t i = 0; i < c.messages.size(); ++i) {
    if (!messageHasToolCalls(c.messages[i])) continue;
    for (const OrderedJson& call : c.messages[i].extra["tool_calls"]) {
      const OrderedJson* args = argumentsOf(call);
      if (!args) continue;
      std::string problem;
      if (args->is_string() && args->get<std::string>().find('{') != std::string::npos &&
          in.encoded.text.find(args->dump(-1, ' ', false)) != std::string::npos)
        problem = "are a JSON string, and the template serialises them again with tojson: the model is trained to "
                  "write a quoted, escaped string where it should write an object";
      else if (printedAsPythonDict(in.encoded.text, *args))
        problem = "are an object, and the template prints them as a Python dict ({'key': ...}), not as JSON: it "
                  "expects a JSON string";
      if (problem.empty()) continue;
      in.emit("tool-arguments-type", firstTokenOf(in.encoded, int(i)),
              in.label() + ": the arguments of a tool call in message " + num(int64_t(i)) + " " + problem);
      return;
    }
  }
}

std::string callId(const OrderedJson& call) {
  return call.is_object() && call.contains("id") && call["id"].is_string() ? call["id"].get<std::string>() : "";
}

std::string responseId(const Message& m) {
  if (!m.extra.is_object() || !m.extra.contains("tool_call_id") || !m.extra["tool_call_id"].is_string()) return "";
  return m.extra["tool_call_id"].get<std::string>();
}

struct Pending {
  std::string id;
  size_t message;
};

// Pairs calls with responses in order (by id where both have one, else first come first answered).
void toolCallPairing(const RowContentInput& in) {
  const Conversation& c = in.conversation;
  if (c.plainText) return;
  std::deque<Pending> pending;
  bool unansweredSaid = false, orphanSaid = false;
  auto unanswered = [&](size_t before) {
    if (pending.empty() || unansweredSaid) return;
    unansweredSaid = true;
    in.emit("tool-call-unanswered", in.label() + ": " + num(int64_t(pending.size())) + " tool call(s) of message " +
                                        num(int64_t(pending.front().message)) +
                                        (pending.front().id.empty() ? "" : " (id " + pending.front().id + ")") +
                                        " get no tool response before message " + num(int64_t(before)));
  };
  for (size_t i = 0; i < c.messages.size(); ++i) {
    const Message& m = c.messages[i];
    if (m.role == "tool" || m.role == "ipython" || m.role == "function") {
      const std::string id = responseId(m);
      auto it = pending.begin();
      if (!id.empty())
        while (it != pending.end() && !it->id.empty() && it->id != id) ++it;
      if (it == pending.end()) {
        if (!orphanSaid)
          in.emit("tool-response-orphan", in.label() + ": tool message " + num(int64_t(i)) +
                                              (id.empty() ? "" : " (tool_call_id " + id + ")") +
                                              " answers no tool call made before it");
        orphanSaid = true;
      } else {
        pending.erase(it);
      }
      continue;
    }
    unanswered(i);
    pending.clear();
    if (messageHasToolCalls(m))
      for (const OrderedJson& call : m.extra["tool_calls"]) pending.push_back({callId(call), i});
  }
  // A row may end with the call (the model learns to call); not with half of a parallel call answered.
  if (!pending.empty() && pending.front().message + 1 != c.messages.size()) unanswered(c.messages.size());
}

// A framework run that dropped rows' tool calls before tokenizing (FrameworkFacts::toolCallsDropped).
bool toolCallsDroppedByFramework(const BatchInput& in) {
  const FrameworkFacts* f = in.batch.framework.get();
  if (!f || f->toolCallsDropped.empty()) return true;
  std::string rows;
  for (size_t i = 0; i < f->toolCallsDropped.size() && i < 8; ++i)
    rows += (rows.empty() ? "" : ", ") + std::to_string(f->toolCallsDropped[i].row) +
            (f->toolCallsDropped[i].line >= 0 ? " (line " + std::to_string(f->toolCallsDropped[i].line) + ")" : "");
  if (f->toolCallsDropped.size() > 8) rows += ", ...";
  in.out.add("tools-not-rendered", std::nullopt, std::nullopt,
             f->framework + " " + f->version + " drops the tool calls of " +
                 std::to_string(f->toolCallsDropped.size()) + " row(s) before tokenizing (" +
                 f->toolCallsDropped.front().reason +
                 "): the model is trained on those replies without the call; "
                 "dataset rows " +
                 rows);
  return true;
}

} // namespace

const std::vector<LintRule>& toolRules() {
  using S = Severity;
  constexpr Scope D = Scope::Data;
  static const std::vector<LintRule> rules = {
      {.info = {"tool-output-graded", S::Error, "what a tool returned is graded",
                "In agent data the assistant calls a tool and the tool's output comes back as a \"tool\" (or "
                "\"ipython\") message. The model never writes that output: the tool does. When those positions keep "
                "their labels, the model is trained to invent tool results, and at inference it answers its own "
                "calls instead of waiting for them. It happens with collators that grade everything but the user "
                "turns, or that treat every non-user message as a reply. Fix: grade only the assistant's replies and "
                "tool calls (maskscope's default preset, TRL assistant_only_loss with {% generation %} around the "
                "assistant turns only, Axolotl roles_to_train: [\"assistant\"] without \"tool\").",
                "roles"},
       .row = toolOutputGraded},
      {.info = {"tool-call-not-graded", S::Warning, "the assistant's tool calls are -100 while its replies are graded",
                "A tool call is something the model must learn to write: the <tool_call> JSON, the [TOOL_CALLS] list "
                "or Llama's {\"name\": ..., \"parameters\": ...} object. When the collator grades the text replies "
                "but leaves the calls at -100 (a {% generation %} block that only wraps assistant turns without "
                "tool_calls, as the qwen2.5-assistant-mask built-in does, or a last-turn-only collator on a row whose "
                "earlier turns call tools), the model learns to answer but never to call. Fix: put the tool calls "
                "inside the graded reply ({% generation %} around the whole assistant turn, the default preset).",
                "roles"},
       .row = toolCallNotGraded},
      {.info = {"tools-not-rendered", S::Error, "the row has tools or tool calls that the rendered text does not hold",
                "A row's \"tools\" list reaches the template as the tools variable, and each assistant message's "
                "\"tool_calls\" as message.tool_calls; the template decides whether and how to print them. A "
                "template without tool support (ChatML, Zephyr, most older templates) or a pipeline that does not "
                "pass tools= renders the row as if the tools did not exist: the model is trained on a system prompt "
                "without the tool definitions, and on empty replies where it should call. Fix: use a template that "
                "renders tools (Qwen2.5/Qwen3, Llama 3.1/3.2, Mistral v0.3, Hermes) and pass the row's tools to it.",
                "template"},
       .beforeRows = toolCallsDroppedByFramework,
       .conversation = toolsNotRendered},
      {.info = {"tool-arguments-type", S::Warning,
                "tool-call arguments are a string where the template serialises a dict, or the reverse",
                "The OpenAI format stores a call's arguments as a JSON string; Hugging Face chat templates expect a "
                "dict and print it with tojson. A string passed to such a template is quoted and escaped a second "
                "time ({\"arguments\": \"{\\\"city\\\": ...}\"}); a dict passed to a template that concatenates a "
                "string comes out as a Python dict ({'city': ...}). Either way the model learns a call format its "
                "parser does not read. maskscope compares the rendered text with the row's arguments. Fix: convert "
                "the arguments to what the template expects (json.loads for Hugging Face templates).",
                "template", D},
       .conversation = toolArgumentsType},
      {.info = {"tool-call-unanswered", S::Warning,
                "a tool call gets no tool response before the conversation moves on",
                "After the assistant calls a tool, the next messages should be the tool's responses (one per call, "
                "matched by tool_call_id where the calls have ids). A call followed directly by a user or assistant "
                "message, or a parallel call with fewer responses than calls, teaches the model a conversation where "
                "tools never answer, and templates that pair calls with results by id (Mistral) render it wrongly "
                "or refuse it. A row that ends with the call is fine (the model learns to call). Fix: add the missing "
                "tool responses, or drop the call.",
                "dataset", D},
       .content = toolCallPairing},
      {.info = {"tool-response-orphan", S::Warning, "a tool message answers no tool call made before it",
                "A tool message is the answer to a call the assistant made earlier in the conversation. One that "
                "comes with no call before it, or whose tool_call_id matches none of the pending calls, is usually "
                "a merge of two exports or a dropped assistant turn; the model is trained on a tool result it never "
                "asked for. Fix: restore the assistant turn with the call, or fix the tool_call_id.",
                "dataset", D}},
  };
  return rules;
}

} // namespace maskscope
