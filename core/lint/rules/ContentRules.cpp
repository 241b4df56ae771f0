// Content rules: what a contributor got wrong in the rows themselves, whatever the collator does
// (no reply, an empty reply, turns out of order, a message the template drops, an unclosed
// <think>), each naming the file line and the message. duplicate-row and mixed-row-shapes need the
// whole file and are reported while it is read (core/lint/DatasetRowChecks.h).
#include "core/lint/LintRegistry.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace maskscope {

namespace {

constexpr std::string_view kOpen = "<think>", kClose = "</think>";

std::string_view trimmed(std::string_view s) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

bool isAssistant(const Message& m) { return m.role == "assistant"; }

// The answer of an assistant message: what follows its last </think> (the reasoning before it is
// rendered apart, or dropped, by reasoning templates), else the whole content.
std::string_view answerOf(const Message& m) {
  const size_t close = m.content.rfind(kClose);
  return close == std::string::npos ? std::string_view(m.content)
                                    : std::string_view(m.content).substr(close + kClose.size());
}

bool hasToolCalls(const Message& m) {
  if (!m.extra.is_object() || !m.extra.contains("tool_calls")) return false;
  const OrderedJson& calls = m.extra["tool_calls"];
  return !calls.is_null() && !(calls.is_array() && calls.empty());
}

// Role names of other row shapes that a messages row sometimes carries by mistake.
std::string roleHint(const std::string& role) {
  if (role == "gpt" || role == "chatgpt" || role == "bard" || role == "bing" || role == "bot" || role == "model")
    return " (\"" + role + "\" is what ShareGPT rows call the assistant; a messages row says \"assistant\")";
  if (role == "human") return " (\"human\" is what ShareGPT rows call the user; a messages row says \"user\")";
  return {};
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// The first token of a message in the row's encoding, when it is rendered.
std::optional<int64_t> firstTokenOf(const RowContentInput& in, int message) {
  if (!in.encoded) return std::nullopt;
  for (size_t t = 0; t < in.encoded->tokens.size(); ++t)
    if (in.encoded->tokens[t].messageIndex == message) return int64_t(t);
  return std::nullopt;
}

void noAssistantReply(const RowContentInput& in) {
  const Conversation& c = in.conversation;
  if (c.plainText || std::any_of(c.messages.begin(), c.messages.end(), isAssistant)) return;
  std::string roles, hint;
  for (size_t i = 0; i < c.messages.size(); ++i) {
    const std::string& r = c.messages[i].role;
    roles += (i ? ", " : "") + r;
    if (hint.empty() && !roleHint(r).empty())
      hint = "; message " + num(int64_t(i)) + " has role " + quoted(r) + roleHint(r);
  }
  in.emit("no-assistant-reply", in.label() + ": no message has role \"assistant\" (roles in order: " + roles +
                                    "), so nothing in this row is a reply to train on" + hint);
}

void trailingUserTurn(const RowContentInput& in) {
  const Conversation& c = in.conversation;
  if (c.plainText || c.messages.size() < 2 || c.messages.back().role != "user") return;
  const auto reply = std::find_if(c.messages.rbegin(), c.messages.rend(), isAssistant);
  if (reply == c.messages.rend()) return; // no reply at all: no-assistant-reply
  const int64_t last = int64_t(c.messages.size()) - 1, answered = int64_t(c.messages.rend() - reply) - 1;
  in.emit("trailing-user-turn",
          in.label() + ": the conversation ends with a user turn (message " + num(last) +
              ") after the last reply (message " + num(answered) +
              "): nothing answers it, so it is trained on nothing; the export may have been cut",
          firstTokenOf(in, int(last)));
}

void emptyReply(const RowContentInput& in) {
  const Conversation& c = in.conversation;
  if (c.plainText) {
    if (trimmed(c.plainCompletion).empty())
      in.emit("empty-reply", in.label() + ": the completion is " +
                                 (c.plainCompletion.empty() ? "empty" : "only spaces") +
                                 ": the model is trained to answer the prompt with nothing");
    return;
  }
  std::string which;
  int first = -1;
  for (size_t i = 0; i < c.messages.size(); ++i) {
    const Message& m = c.messages[i];
    if (!isAssistant(m) || hasToolCalls(m) || !trimmed(answerOf(m)).empty()) continue;
    const bool reasoningOnly = m.content.find(kClose) != std::string::npos;
    which += std::string(which.empty() ? "" : "; ") + "message " + num(int64_t(i)) +
             (reasoningOnly       ? " holds reasoning but no answer after </think>"
              : m.content.empty() ? " is empty"
                                  : " is only spaces");
    if (first < 0) first = int(i);
  }
  if (first < 0) return;
  in.emit("empty-reply",
          in.label() + ": an assistant reply with no text (" + which +
              "): the model is trained to answer with nothing but the end-of-turn token",
          firstTokenOf(in, first));
}

void systemNotFirst(const RowContentInput& in) {
  const std::vector<Message>& msgs = in.conversation.messages;
  for (size_t i = 1; i < msgs.size(); ++i) {
    if (msgs[i].role != "system" && msgs[i].role != "developer") continue;
    in.emit("system-not-first",
            in.label() + ": message " + num(int64_t(i)) + " is a " + msgs[i].role + " message after message 0 (" +
                msgs[0].role +
                "): chat templates place the system prompt first, and many move, merge, drop or refuse a later one",
            firstTokenOf(in, int(i)));
    return;
  }
}

void consecutiveSameRole(const RowContentInput& in) {
  const std::vector<Message>& msgs = in.conversation.messages;
  int64_t first = -1, pairs = 0;
  for (size_t i = 1; i < msgs.size(); ++i) {
    const std::string& r = msgs[i].role;
    if (r != msgs[i - 1].role || (r != "user" && r != "assistant")) continue;
    ++pairs;
    if (first < 0) first = int64_t(i);
  }
  if (first < 0) return;
  in.emit("consecutive-same-role",
          in.label() + ": messages " + num(first - 1) + " and " + num(first) + " are both " + msgs[size_t(first)].role +
              " turns" + (pairs > 1 ? " (" + num(pairs) + " such pairs in the row)" : "") +
              ": turns should alternate; templates that check it (Gemma, Mistral, Llama 2) refuse the row, the "
              "others train on a conversation that never happens at inference",
          firstTokenOf(in, int(first)));
}

// Whether the template's source names a role (in quotes), i.e. has a branch that renders it.
bool templateNamesRole(const ChatTemplate* tpl, const std::string& role) {
  if (!tpl) return true;
  const std::string src = tpl->source();
  return src.find("'" + role + "'") != std::string::npos || src.find("\"" + role + "\"") != std::string::npos;
}

void messageDroppedByTemplate(const RowContentInput& in) {
  if (!in.encoded || in.conversation.plainText) return;
  const TokenizedConversation& tc = *in.encoded;
  const std::vector<Message>& msgs = in.conversation.messages;
  for (size_t i = 0; i < msgs.size(); ++i) {
    const Message& m = msgs[i];
    const std::string_view needle = trimmed(isAssistant(m) ? answerOf(m) : std::string_view(m.content));
    if (needle.empty()) continue;
    const auto span = std::find_if(tc.messages.begin(), tc.messages.end(),
                                   [&](const MessageSpan& s) { return s.messageIndex == int(i); });
    if ((span != tc.messages.end() && !span->content.empty()) || tc.text.find(needle) != std::string::npos) continue;
    const std::string why = templateNamesRole(in.facts.chatTemplate, m.role)
                                ? "the template renders role " + quoted(m.role) + " but leaves this message out"
                                : "the template has no branch for role " + quoted(m.role) +
                                      ", so it renders nothing for it" + roleHint(m.role);
    in.emit("message-dropped-by-template", in.label() + ": the content of message " + num(int64_t(i)) + " (" + m.role +
                                               ") is not in the rendered text: " + why +
                                               "; the model never sees it, and a reply in it is never trained");
  }
}

// The token of the think tag at byte `offset` of message `message`'s content: there when the render keeps
// the content as written; where the template rewrites the reply (Qwen3's moves the reasoning into a block
// of its own and drops what comes before a second <think>), the first such tag of the message's block in
// the render; else the message's first token. Never a token that is not the tag when the render has one.
std::optional<int64_t> thinkTagToken(const RowContentInput& in, int message, size_t offset, std::string_view tag) {
  if (!in.encoded) return std::nullopt;
  const TokenizedConversation& tc = *in.encoded;
  const std::string_view text = tc.text;
  auto tokenAt = [&](int64_t at) -> std::optional<int64_t> {
    for (size_t t = 0; t < tc.tokens.size(); ++t)
      if (tc.tokens[t].span.contains(at)) return int64_t(t);
    return std::nullopt;
  };
  for (const MessageSpan& s : tc.messages) {
    if (s.messageIndex != message) continue;
    const int64_t at = s.content.begin + int64_t(offset);
    if (int64_t(offset) < s.content.size() && text.substr(size_t(at)).starts_with(tag))
      if (const auto t = tokenAt(at)) return t;
    if (s.block.empty()) continue;
    const size_t inBlock = text.substr(size_t(s.block.begin), size_t(s.block.size())).find(tag);
    if (inBlock != std::string_view::npos)
      if (const auto t = tokenAt(s.block.begin + int64_t(inBlock))) return t;
  }
  return firstTokenOf(in, message);
}

// A reasoning block opened and never closed (depth > 0 at the end), or closed without being opened.
void unclosedThink(const RowContentInput& in) {
  if (!in.facts.thinkTags || in.conversation.plainText) return;
  const std::vector<Message>& msgs = in.conversation.messages;
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (!isAssistant(msgs[i])) continue;
    const std::string& text = msgs[i].content;
    std::vector<size_t> open; // byte offsets of the <think> tags not closed yet
    std::optional<size_t> strayClose;
    for (size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at + 1)) {
      if (text.compare(at, kOpen.size(), kOpen) == 0) open.push_back(at);
      if (text.compare(at, kClose.size(), kClose) == 0) {
        if (!open.empty())
          open.pop_back();
        else if (!strayClose)
          strayClose = at;
      }
    }
    if (open.empty() && !strayClose) continue;
    const std::string what = "message " + num(int64_t(i)) + " (assistant)";
    if (!open.empty()) {
      in.emit("unclosed-think",
              in.label() + ": " + what +
                  " opens <think> and never closes it: the whole reply is trained as reasoning that never ends, "
                  "and at inference the model keeps thinking instead of answering",
              thinkTagToken(in, int(i), open.front(), kOpen));
      continue;
    }
    // Closed without an opening: harmless only where the template writes the <think> itself.
    bool templateOpens = false;
    if (in.encoded)
      for (const MessageSpan& s : in.encoded->messages)
        if (s.messageIndex == int(i) && !s.block.empty()) {
          const std::string_view block =
              std::string_view(in.encoded->text).substr(size_t(s.block.begin), size_t(s.block.size()));
          const size_t open = block.find(kOpen), close = block.find(kClose);
          templateOpens = open != std::string_view::npos && open < close;
        }
    in.emit("unclosed-think",
            in.label() + ": " + what + " has </think> without an opening <think>" +
                (templateOpens ? ": the template writes the opening itself, so the render is balanced, but the row "
                                 "disagrees with every row that opens it"
                               : ": the render holds a closing tag that nothing opened, so the reasoning and the "
                                 "answer run together"),
            thinkTagToken(in, int(i), *strayClose, kClose),
            templateOpens ? std::optional<Severity>(Severity::Warning) : std::nullopt);
  }
}

} // namespace

const std::vector<LintRule>& contentRules() {
  using S = Severity;
  constexpr Scope D = Scope::Data;
  static const std::vector<LintRule> rules = {
      {.info = {"no-assistant-reply", S::Error, "a row has no assistant message: nothing to train",
                "Supervised fine-tuning grades the model on the assistant's replies. A row whose messages are all "
                "system and user turns (or whose reply is stored under another role name, such as ShareGPT's 'gpt' "
                "in a messages row) has no reply: with assistant-only or completion-only loss every label is -100, "
                "the row costs a forward and backward pass and teaches nothing, and a micro-batch of such rows has a "
                "NaN loss. It is usually a cut export or a row of the wrong shape. Fix: add the assistant reply with "
                "role \"assistant\", or delete the row.",
                "dataset", D},
       .content = noAssistantReply},
      {.info = {"trailing-user-turn", S::Warning, "a conversation ends with a user turn after its last reply",
                "The last message of a training conversation should be the reply being learned. A user turn after "
                "the last assistant reply is never answered: it is rendered, tokenized and masked out, so it costs "
                "compute and trains nothing, and it often means the export cut the conversation before the final "
                "reply. Fix: delete the trailing user message, or add the reply that answers it.",
                "dataset", D},
       .content = trailingUserTurn},
      {.info = {"empty-reply", S::Error, "an assistant reply (or completion) is empty or only spaces",
                "An assistant message with empty or whitespace-only content (and no tool calls) is still graded: the "
                "model is trained to answer with nothing but the end-of-turn token, and learns to stop immediately. A "
                "reasoning reply that has <think>...</think> but no text after it is the same. Fix: write the reply, "
                "or delete the row (or the empty turn and the user turn it answers).",
                "dataset", D},
       .content = emptyReply},
      {.info = {"system-not-first", S::Warning, "a system message comes after the first message",
                "Chat templates put the system prompt at the start: they test messages[0]['role'] == 'system'. A "
                "system message later in the conversation is handled differently by each template: Qwen renders it "
                "as an ordinary turn, Llama 2 and Mistral merge or move it, Gemma and others refuse the row with "
                "raise_exception. The model trains on a layout it never sees at inference. Fix: move the system "
                "message to the first position (merge it into the first one if there are two), or delete it.",
                "dataset", D},
       .content = systemNotFirst},
      {.info = {"consecutive-same-role", S::Warning, "two user (or two assistant) turns follow each other",
                "Conversations alternate user and assistant turns. Two user turns in a row (or two replies in a row) "
                "are refused by templates that check the alternation (Gemma, Mistral, Llama 2: 'Conversation roles "
                "must alternate user/assistant/user/assistant/...') and trained as an unusual layout by the others. It "
                "usually comes from a merge of two exports or a dropped turn. Fix: join the two messages into one, or "
                "restore the missing turn between them.",
                "dataset", D},
       .content = consecutiveSameRole},
      {.info = {"message-dropped-by-template", S::Error, "a message's content does not appear in the rendered text",
                "The chat template renders each message by its role. A role it has no branch for (ShareGPT's 'gpt' or "
                "'human' in a messages row, 'bot', 'model' for a template that expects 'assistant') renders nothing, "
                "and some templates keep only some messages of a role (one system message, the reasoning of the last "
                "turn). The message silently disappears: the model never sees it, and when it is a reply it is never "
                "trained, while the row still looks fine. maskscope compares each message's content with the render "
                "and names the message and the reason. Fix: rename the role to one the template renders (\"user\", "
                "\"assistant\", \"system\", \"tool\"), or convert the row with the right shape (ShareGPT rows keep "
                "\"conversations\" with \"from\"/\"value\").",
                "dataset + template", D},
       .content = messageDroppedByTemplate},
      {.info =
           {"unclosed-think", S::Error,
            "a reply opens a think block and never closes it (or closes one it never opened)",
            "Reasoning models (Qwen3, DeepSeek-R1 style) write their reasoning between <think> and </think> and the "
            "answer after it; their templates split a reply at </think>. A reply that opens <think> and never "
            "closes it is trained as one endless reasoning block, so the model learns to keep thinking instead of "
            "answering; a </think> with no opening <think> leaves a stray tag (a warning where the template writes "
            "the opening itself). Runs only where the template or the tokenizer uses think tags. Fix: close the "
            "reasoning with </think> before the answer, or remove the stray tag.",
            "dataset + template (think tags)", D},
       .content = unclosedThink},
      // Reported while the file is read (DatasetRowChecks): they compare a row with earlier rows.
      {.info = {"duplicate-row", S::Warning, "a row repeats an earlier row (after normalising whitespace)",
                "Exact copies of a conversation (the same roles and texts, ignoring differences in spaces and line "
                "breaks) are trained several times per epoch: the model overfits them, the loss on them drops faster "
                "than on the rest, and an evaluation split that shares a copy measures memorisation. maskscope keeps "
                "a 64-bit hash of each row (not its text), so it names the line of the first copy in files of any "
                "size. Fields outside the conversation (ids, sources, categories) are not compared. Fix: delete the "
                "later copies (keep the line named as the first).",
                "dataset", D}},
      {.info = {"mixed-row-shapes", S::Error,
                "rows of different shapes (messages, ShareGPT, prompt/completion, Alpaca)",
                "datasets.load_dataset reads a JSON or JSONL file into one table with one schema. A file that mixes "
                "messages rows, ShareGPT rows ('conversations' with 'from'/'value'), prompt/completion rows and Alpaca "
                "rows ('instruction'/'output') is refused (the columns' types disagree) or read with every other "
                "shape's columns set to null, so TRL sees rows without messages and drops them or fails. maskscope "
                "names each row whose shape differs from the file's first row. Fix: convert every row to one shape "
                "(for TRL: messages), or split the file by shape.",
                "dataset", D}},
  };
  return rules;
}

} // namespace maskscope
