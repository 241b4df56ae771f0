// torchtune's message path, read from pytorch/torchtune bd2a0fc (version.txt 0.7.0):
// torchtune/data/_messages.py (Message, OpenAIToMessages, ShareGPTToMessages, validate_messages,
// mask_messages), torchtune/datasets/_sft.py (SFTTransform's labels), torchtune/data/_utils.py (truncate),
// torchtune/models/llama3/_tokenizer.py and torchtune/models/qwen2_5/_tokenizer.py (Qwen3Tokenizer is
// Qwen2_5Tokenizer with <think> tokens added: the same tokenize_messages).
#include "core/frameworks/torchtune/TorchtuneMessages.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"

namespace maskscope::torchtune {

namespace {

struct TtMessage {
  std::string role, text; // text: the text parts joined (images are refused)
  bool masked = false, eot = true;
  int32_t index = -1; // the row's message index (-1: new_system_prompt)
};

[[noreturn]] void fail(std::string& field, const std::string& key, const std::string& message) {
  field = key;
  throw Error(message);
}

const nlohmann::json& key(const nlohmann::json& m, const char* name, std::string& field, const std::string& at) {
  if (!m.is_object() || !m.contains(name)) fail(field, at, std::string("KeyError: '") + name + "'");
  return m[name];
}

// OpenAIToMessages._convert_from_openai_content: text parts kept, image_url loaded (refused here: the
// tokenizers reproduced write no image tokens), every other part type dropped.
std::string openAiContent(const nlohmann::json& parts, std::string& field, const std::string& at) {
  std::string text;
  for (const auto& p : parts) {
    const std::string type =
        p.is_object() && p.contains("type") && p["type"].is_string() ? p["type"].get<std::string>() : std::string();
    if (type == "image_url") fail(field, at, "image content is not reproduced (torchtune loads the image)");
    if (type != "text") continue;
    const auto& t = key(p, "text", field, at);
    if (!t.is_string()) fail(field, at, "a text part's \"text\" is not a string");
    text += t.get<std::string>();
  }
  return text;
}

std::vector<TtMessage> openAiToMessages(const nlohmann::json& messages, const MessageOptions& o, std::string& field,
                                        std::vector<std::string>& warnings) {
  std::vector<TtMessage> out;
  if (o.newSystemPrompt) out.push_back({"system", *o.newSystemPrompt, true, true, -1});
  std::optional<std::string> content; // a Python local: a message whose content is neither str nor list keeps it
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string at = o.column + "[" + std::to_string(i) + "]";
    const auto& m = messages[i];
    const auto& role = key(m, "role", field, at);
    if (!role.is_string()) fail(field, at, "role is not a string");
    const std::string r = role.get<std::string>();
    if (r == "system" && o.newSystemPrompt) continue;
    const auto& c = key(m, "content", field, at);
    if (c.is_array())
      content = openAiContent(c, field, at);
    else if (c.is_string())
      content = c.get<std::string>();
    else if (!content)
      fail(field, at, "UnboundLocalError: content (a content neither a string nor a list)");
    if (m.contains("tool_calls"))
      warnings.push_back(at + ": OpenAIToMessages keeps only the content; the assistant's tool_calls are dropped" +
                         std::string(c.is_string() || c.is_array() ? ""
                                                                   : ", and its null content repeats the "
                                                                     "previous message's"));
    bool eot = true;
    if (r == "tool" || r == "ipython")
      eot = false;
    else if (r == "assistant" && i + 1 < messages.size() && messages[i + 1].is_object()) {
      const auto next = messages[i + 1].value("role", std::string());
      eot = next != "tool" && next != "ipython";
    }
    out.push_back({r, *content, false, eot, int32_t(i)});
  }
  return out;
}

std::vector<TtMessage> shareGptToMessages(const nlohmann::json& messages, const MessageOptions& o, std::string& field) {
  std::vector<TtMessage> out;
  if (o.newSystemPrompt) out.push_back({"system", *o.newSystemPrompt, true, true, -1});
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string at = o.column + "[" + std::to_string(i) + "]";
    const auto& from = key(messages[i], "from", field, at);
    const std::string f = from.is_string() ? from.get<std::string>() : from.dump();
    const std::string role = f == "system" ? "system" : f == "human" ? "user" : f == "gpt" ? "assistant" : "";
    if (role.empty()) fail(field, at, "KeyError: '" + f + "' (ShareGPTToMessages maps system, human and gpt)");
    const auto& value = key(messages[i], "value", field, at);
    if (!value.is_string()) fail(field, at, "\"value\" is not a string");
    if (role == "system" && o.newSystemPrompt) continue;
    out.push_back({role, value.get<std::string>(), false, true, int32_t(i)});
  }
  return out;
}

// mask_messages: walked from the last message; system always masked.
void maskMessages(std::vector<TtMessage>& messages, const std::string& strategy) {
  bool markedLast = false;
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (it->role == "system") {
      it->masked = true;
    } else if (strategy == "train_on_last") {
      it->masked = !(it->role == "assistant" && !markedLast);
      markedLast = markedLast || it->role == "assistant";
    } else if (strategy == "train_on_all") {
      it->masked = false; // role == "user" and contains_media: images are refused before
    } else {
      it->masked = it->role != "assistant";
    }
  }
}

// validate_messages, with its messages. No message transform reproduced sets ipython, so a tool or
// ipython message always fails here.
void validateMessages(const std::vector<TtMessage>& messages, std::string& field, const std::string& column) {
  field = column;
  if (messages.size() < 2)
    throw Error("ValueError: Messages must be at least length 2, but got " + std::to_string(messages.size()) +
                " messages");
  std::string last = "assistant";
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string& r = messages[i].role;
    const std::string at = std::to_string(i);
    if (r == "assistant" && last != "user" && last != "tool" && last != "ipython")
      throw Error("ValueError: Assistant message before expected user, tool or ipython message at index " + at +
                  " in messages");
    if (r == "user" && last == "user")
      throw Error("ValueError: Two consecutive user messages at index " + at + " and " + std::to_string(i - 1) +
                  " in messages");
    if (r == "system" && i > 0)
      throw Error("ValueError: System message at index " + at + " in messages, but system messages must come first");
    if (r == "tool" || r == "ipython")
      throw Error("ValueError: Tool or ipython message at index " + at +
                  " must follow an ipython message (OpenAIToMessages never sets ipython: torchtune 0.7.0 trains on no "
                  "tool turns through chat_dataset)");
    last = r;
  }
}

PositionKind kindOf(const std::string& role) {
  if (role == "system") return PositionKind::System;
  if (role == "user") return PositionKind::User;
  if (role == "assistant") return PositionKind::Assistant;
  return PositionKind::Unknown;
}

// The tokens and mask tokenize_messages builds, with one PositionMeta per token.
struct Built {
  std::vector<int64_t> tokens;
  std::vector<bool> mask;
  std::vector<PositionMeta> meta;
  int32_t turn = 0;
  int users = 0;

  void add(const std::vector<int64_t>& ids, const TtMessage& m, bool scaffolding, bool special, bool closes = false) {
    for (int64_t id : ids) {
      tokens.push_back(id);
      mask.push_back(m.masked);
      PositionMeta p;
      p.kind = kindOf(m.role);
      p.messageIndex = m.index;
      p.turn = turn;
      p.scaffolding = scaffolding;
      p.special = special;
      p.reply = m.role == "assistant" && (!scaffolding || closes);
      p.closesReply = closes && m.role == "assistant";
      meta.push_back(p);
    }
  }
  void startMessage(const TtMessage& m) {
    if (m.role == "user" && ++users > 1) ++turn;
  }
};

struct Family {
  const Tokenizer& tok;
  bool llama3;
  int64_t id(const std::string& token) const {
    const auto v = tok.tokenToId(token);
    if (!v) throw Error("the tokenizer has no " + token + " token: use the model's own tokenizer");
    return *v;
  }
  // Llama 3: tiktoken with allowed_special=set(): special-token text is ordinary text. Qwen2Tokenizer
  // splits the text on its special tokens first.
  std::vector<int64_t> encode(const std::string& text) const {
    if (text.empty()) return {};
    EncodeOptions eo;
    eo.splitSpecialTokens = llama3;
    eo.tokenStrings = false;
    const Encoding e = tok.encode(text, eo);
    return {e.ids.begin(), e.ids.end()};
  }
};

std::string pyStrip(const std::string& s) {
  const char* ws = " \t\n\r\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// Llama3Tokenizer.tokenize_messages: BOS, per message header + stripped body + eot/eom, EOS (masked).
Built llama3Tokens(const std::vector<TtMessage>& messages, const Family& f, const MessageOptions& o) {
  Built b;
  const TtMessage none{"", "", true, true, -1};
  b.add({f.id("<|begin_of_text|>")}, none, true, true);
  b.meta.back().kind = PositionKind::Template;
  for (const TtMessage& m : messages) {
    b.startMessage(m);
    b.add({f.id("<|start_header_id|>")}, m, true, true);
    b.add(f.encode(pyStrip(m.role)), m, true, false);
    b.add({f.id("<|end_header_id|>")}, m, true, true);
    b.add(f.encode("\n\n"), m, true, false);
    b.add(f.encode(pyStrip(m.text)), m, false, false);
    b.add({f.id(m.eot ? "<|eot_id|>" : "<|eom_id|>")}, m, true, true, true);
    if (o.maxSeqLen && int64_t(b.tokens.size()) >= *o.maxSeqLen) break;
  }
  b.add({f.id("<|end_of_text|>")}, none, true, true);
  b.meta.back().kind = PositionKind::Template;
  return b;
}

// Qwen2_5Tokenizer.tokenize_messages: <|im_start|>role\n body <|im_end|>\n, the last assistant message
// without its footer; then the EOS (<|im_end|>) with the last message's mask.
Built qwenTokens(const std::vector<TtMessage>& messages, const Family& f, const MessageOptions& o) {
  Built b;
  for (size_t i = 0; i < messages.size(); ++i) {
    const TtMessage& m = messages[i];
    b.startMessage(m);
    b.add({f.id("<|im_start|>")}, m, true, true);
    b.add(f.encode(m.role + "\n"), m, true, false);
    b.add(f.encode(m.text), m, false, false);
    if (m.role != "assistant" || i + 1 != messages.size()) {
      b.add({f.id("<|im_end|>")}, m, true, true, true);
      b.add(f.encode("\n"), m, true, false);
    }
    if (o.maxSeqLen && int64_t(b.tokens.size()) >= *o.maxSeqLen) break;
  }
  if (b.tokens.empty()) return b;
  PositionMeta eos = b.meta.back(); // the last message's, as its mask is
  eos.scaffolding = eos.special = true;
  eos.reply = eos.closesReply = eos.kind == PositionKind::Assistant;
  b.tokens.push_back(f.id("<|im_end|>"));
  b.mask.push_back(bool(b.mask.back()));
  b.meta.push_back(eos);
  return b;
}

// truncate(): the first (right) or last (left) max_seq_len, the last replaced by EOS (mask True).
void truncate(Built& b, const MessageOptions& o, int64_t eos) {
  if (!o.maxSeqLen) return;
  const size_t n = size_t(*o.maxSeqLen);
  if (b.tokens.size() > n) {
    const size_t from = o.truncationType == "left" ? b.tokens.size() - n : 0;
    b.tokens = {b.tokens.begin() + long(from), b.tokens.begin() + long(from + n)};
    b.mask = {b.mask.begin() + long(from), b.mask.begin() + long(from + n)};
    b.meta = {b.meta.begin() + long(from), b.meta.begin() + long(from + n)};
  }
  if (!b.tokens.empty() && b.tokens.back() != eos) b.tokens.back() = eos;
  if (!b.mask.empty()) b.mask.back() = true;
}

} // namespace

const std::vector<std::string>& messageTokenizers() {
  static const std::vector<std::string> names = {"llama3", "qwen2_5", "qwen3"};
  return names;
}

MessageSample tokenizeMessageRow(const nlohmann::json& row, const MessageOptions& o, const Tokenizer& tokenizer,
                                 std::string& field) {
  MessageSample s;
  MessageOptions opt = o;
  if (opt.column.empty()) opt.column = opt.conversationStyle == "sharegpt" ? "conversations" : "messages";
  if (row.contains("image")) fail(field, "image", "image rows are not reproduced (torchtune loads the image)");
  const auto& messages = key(row, opt.column.c_str(), field, opt.column);
  if (!messages.is_array()) fail(field, opt.column, "is not a list of messages");
  std::vector<TtMessage> tt = opt.conversationStyle == "sharegpt" ? shareGptToMessages(messages, opt, field)
                                                                  : openAiToMessages(messages, opt, field, s.warnings);
  maskMessages(tt, opt.maskingStrategy);
  validateMessages(tt, field, opt.column);
  const Family f{tokenizer, opt.modelTokenizer == "llama3"};
  Built b = f.llama3 ? llama3Tokens(tt, f, opt) : qwenTokens(tt, f, opt);
  truncate(b, opt, f.id(f.llama3 ? "<|end_of_text|>" : "<|im_end|>"));
  // SFTTransform: labels = where(mask[1:], -100, tokens[1:]) + [-100].
  s.tokens = std::move(b.tokens);
  s.labels.assign(s.tokens.size(), kIgnoreIndex);
  for (size_t t = 0; t + 1 < s.tokens.size(); ++t)
    if (!b.mask[t + 1]) s.labels[t] = s.tokens[t + 1];
  s.meta = std::move(b.meta);
  return s;
}

} // namespace maskscope::torchtune
