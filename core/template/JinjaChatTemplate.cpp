// JinjaChatTemplate: the variables transformers passes to a chat template, the render, and the
// per-message spans (method described in JinjaChatTemplate.h).
#include "core/template/JinjaChatTemplate.h"

#include "core/template/jinja/PyString.h"

namespace maskscope {

using jinja::Value;

JinjaChatTemplate::JinjaChatTemplate(std::string name, const std::string& source,
                                     std::map<std::string, std::string> defaults)
    : name_(std::move(name)), source_(source), defaults_(std::move(defaults)),
      template_(jinja::Template::parse(source, name_)) {}

namespace {

Value messageValue(const Message& m) {
  auto d = std::make_shared<jinja::DictObj>();
  d->entries.reserve(2 + (m.extra.is_object() ? m.extra.size() : 0));
  d->entries.emplace_back("role", Value::string(m.role));
  const OrderedJson* structured = nullptr;
  if (m.extra.is_object()) {
    auto it = m.extra.find("content");
    if (it != m.extra.end() && !it->is_string()) structured = &*it;
  }
  d->entries.emplace_back("content", structured ? Value::fromJson(*structured) : Value::string(m.content));
  if (m.extra.is_object())
    for (auto it = m.extra.begin(); it != m.extra.end(); ++it)
      if (it.key() != "role" && it.key() != "content") d->entries.emplace_back(it.key(), Value::fromJson(it.value()));
  return Value::dict(std::move(d));
}

bool startsWith(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

// The answer of a reply whose reasoning a template drops from earlier turns: what follows the last
// "</think>", leading newlines removed (Qwen3 and DeepSeek-R1 render content.split('</think>')[-1]
// .lstrip('\n')); empty when the content has no reasoning block.
std::string_view answerAfterThink(const std::string& content) {
  const size_t close = content.rfind("</think>");
  if (close == std::string::npos) return {};
  std::string_view rest = std::string_view(content).substr(close + 8);
  while (!rest.empty() && rest.front() == '\n') rest.remove_prefix(1);
  return rest;
}

// First verbatim occurrence of content (or of its stripped form, or of its answer after a reasoning
// block the template dropped) in text[from, to); false if none.
bool locateContent(const std::string& text, const std::string& content, int64_t from, int64_t to, ByteSpan& out) {
  if (content.empty()) return false;
  for (int pass = 0; pass < 3; ++pass) {
    std::string_view needle = pass == 0   ? std::string_view(content)
                              : pass == 1 ? jinja::py::strip(content, nullptr, true, true)
                                          : answerAfterThink(content);
    if (needle.empty()) return false;
    size_t at = text.find(needle, size_t(from));
    if (at != std::string::npos && (to < 0 || int64_t(at + needle.size()) <= to)) {
      out = ByteSpan{int64_t(at), int64_t(at + needle.size())};
      return true;
    }
  }
  return false;
}

int turnOf(const std::vector<std::string>& roles, size_t k, int& users, int& turn) {
  if (roles[k] == "user" && ++users > 1) ++turn;
  return turn;
}

} // namespace

RenderResult JinjaChatTemplate::render(const std::vector<Message>& messages, const RenderOptions& options) const {
  std::vector<Value> values;
  std::vector<std::string> roles, contents;
  values.reserve(messages.size());
  for (const auto& m : messages) {
    values.push_back(messageValue(m));
    roles.push_back(m.role);
    contents.push_back(m.content);
  }
  Value tools = options.tools.is_null() ? Value::none() : Value::fromJson(options.tools);
  Value extra = options.extra.is_object() ? Value::fromJson(options.extra) : Value();
  return renderValues(values, roles, contents, options, tools, extra);
}

RenderResult JinjaChatTemplate::renderJson(const nlohmann::ordered_json& messages, const RenderOptions& options,
                                           const nlohmann::ordered_json& tools,
                                           const nlohmann::ordered_json& extra) const {
  if (!messages.is_array()) throw Error("messages must be a JSON list", SourceLocation{name_});
  std::vector<Value> values;
  std::vector<std::string> roles, contents;
  for (const auto& m : messages) {
    values.push_back(Value::fromJson(m));
    std::string role, content;
    if (m.is_object()) {
      auto r = m.find("role");
      if (r != m.end() && r->is_string()) role = r->get<std::string>();
      auto c = m.find("content");
      if (c != m.end() && c->is_string()) content = c->get<std::string>();
    }
    roles.push_back(role);
    contents.push_back(content);
  }
  Value toolsValue = tools.is_null() ? (options.tools.is_null() ? Value::none() : Value::fromJson(options.tools))
                                     : Value::fromJson(tools);
  Value extraValue = extra.is_object() ? Value::fromJson(extra)
                                       : (options.extra.is_object() ? Value::fromJson(options.extra) : Value());
  return renderValues(values, roles, contents, options, toolsValue, extraValue);
}

jinja::RenderOutput JinjaChatTemplate::renderOnce(const jinja::Variables& base, std::vector<Value> messages,
                                                  bool addGenerationPrompt, const RenderOptions& options,
                                                  const std::vector<const void*>* tracked) const {
  jinja::Variables vars = base;
  vars.emplace_back("messages", Value::list(std::move(messages)));
  vars.emplace_back("add_generation_prompt", Value::boolean(addGenerationPrompt));
  jinja::RenderSettings settings;
  settings.now = options.now;
  settings.trackedItems = tracked;
  return template_->render(vars, settings);
}

struct JinjaChatTemplate::SpanInputs {
  const jinja::Variables& base;
  const std::vector<Value>& messages;
  const std::vector<std::string>& roles;
  const std::vector<std::string>& contents;
  const RenderOptions& options;
  const std::string& text; // the full render
  int64_t bosEnd;          // bytes of a leading BOS token in text, else 0
};

// Fast path: boundaries from the loop iterations recorded during the render, confirmed by one
// prefix render.
std::optional<std::vector<MessageSpan>>
JinjaChatTemplate::spansFromLoop(const SpanInputs& in, const std::vector<std::pair<int64_t, int64_t>>& loop) const {
  const auto& it = loop;
  const int64_t n = int64_t(in.messages.size());
  const std::string& text = in.text;
  bool ok = int64_t(it.size()) == n;
  size_t first = 0;
  if (ok && it[0].first < 0) first = 1; // a leading message pulled out before the loop
  for (size_t k = first; ok && k < size_t(n); ++k)
    ok = it[k].first >= 0 && (k == first || it[k].first >= it[k - 1].second);
  if (ok && first == 1 && n < 2) ok = false;
  std::vector<MessageSpan> spans;
  int users = 0, turn = 0;
  for (size_t k = 0; ok && k < size_t(n); ++k) {
    int64_t b = k < first ? in.bosEnd : it[k].first;
    int64_t e =
        k + 1 < size_t(n) ? it[k + 1].first : (in.options.addGenerationPrompt ? it[k].second : int64_t(text.size()));
    if (e < b) {
      ok = false;
      break;
    }
    MessageSpan span;
    span.messageIndex = int(k);
    span.role = in.roles[k];
    span.turn = turnOf(in.roles, k, users, turn);
    span.block = ByteSpan{b, e};
    if (!locateContent(text, in.contents[k], b, e, span.content)) {
      if (!in.contents[k].empty()) {
        ok = false;
        break;
      } // content outside its block: not this shape
      span.content = ByteSpan{b, b};
    }
    spans.push_back(std::move(span));
  }
  if (ok && n >= 2) {
    // confirm one boundary with a prefix render
    size_t k = size_t(n) / 2 - 1;
    try {
      std::vector<Value> prefix(in.messages.begin(), in.messages.begin() + long(k) + 1);
      jinja::RenderOutput p = renderOnce(in.base, std::move(prefix), false, in.options);
      ok = startsWith(text, p.text) && int64_t(p.text.size()) == spans[k].block.end;
    } catch (const jinja::TemplateLimitError&) {
      throw;
    } catch (const Error&) {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return spans;
}

// Where message k+1's iteration began in the full render, when the recorded iterations are in
// order and non-empty: the end of message k's block for templates that are not prefix-preserving
// (Qwen3 renders an assistant reply differently when it is the last message), else -1.
static int64_t nextIterationStart(const std::vector<std::pair<int64_t, int64_t>>& loop, size_t k) {
  if (k + 1 >= loop.size()) return -1;
  for (size_t j = 1; j < loop.size(); ++j)
    if (loop[j].first < 0 || loop[j].first >= loop[j].second || loop[j].first < loop[j - 1].second) return -1;
  return loop[k + 1].first;
}

std::vector<MessageSpan>
JinjaChatTemplate::spansFromPrefixes(const SpanInputs& in, const std::vector<std::pair<int64_t, int64_t>>& loop) const {
  // General path: one render per prefix. Start of the first block: what an empty conversation renders, else the BOS
  // token.
  const int64_t n = int64_t(in.messages.size());
  const std::string& text = in.text;
  int64_t start = 0;
  try {
    jinja::RenderOutput empty = renderOnce(in.base, {}, false, in.options);
    if (startsWith(text, empty.text)) start = int64_t(empty.text.size());
  } catch (const jinja::TemplateLimitError&) {
    throw;
  } catch (const Error&) {
    start = in.bosEnd;
  }

  std::vector<MessageSpan> spans;
  int turn = 0, users = 0;
  int64_t prevEnd = start;
  for (int64_t k = 0; k < n; ++k) {
    int64_t end = -1;
    if (k == n - 1 && !in.options.addGenerationPrompt) {
      end = int64_t(text.size());
    } else {
      try {
        std::vector<Value> prefix(in.messages.begin(), in.messages.begin() + k + 1);
        jinja::RenderOutput p = renderOnce(in.base, std::move(prefix), false, in.options);
        if (startsWith(text, p.text) && int64_t(p.text.size()) >= prevEnd) end = int64_t(p.text.size());
      } catch (const jinja::TemplateLimitError&) {
        throw;
      } catch (const Error&) {
      }
    }
    ByteSpan content;
    bool found = locateContent(text, in.contents[size_t(k)], prevEnd, end, content);
    if (end < 0 && loop.size() == size_t(n)) {
      const int64_t next = nextIterationStart(loop, size_t(k));
      if (next >= (found ? content.end : prevEnd)) end = next; // the block runs to the next message's iteration
    }
    if (end < 0) end = found ? content.end : prevEnd; // fallback: block ends with its content
    if (in.roles[size_t(k)] == "user") {
      ++users;
      if (users > 1) ++turn;
    }
    MessageSpan span;
    span.messageIndex = int(k);
    span.role = in.roles[size_t(k)];
    span.turn = turn;
    span.block = ByteSpan{prevEnd, end};
    span.content = found ? content : ByteSpan{prevEnd, prevEnd};
    spans.push_back(std::move(span));
    prevEnd = end;
  }
  return spans;
}

namespace {
Value templateVariableValue(const std::string& v) {
  if (v == "true" || v == "True") return Value::boolean(true);
  if (v == "false" || v == "False") return Value::boolean(false);
  return Value::string(v);
}
} // namespace

RenderResult JinjaChatTemplate::renderValues(const std::vector<Value>& messages, const std::vector<std::string>& roles,
                                             const std::vector<std::string>& contents, const RenderOptions& options,
                                             const Value& tools, const Value& extra) const {
  // What transformers passes: special tokens, then tools/documents (None when absent), then kwargs.
  jinja::Variables base;
  std::map<std::string, std::string> merged = defaults_;
  for (const auto& [k, v] : options.variables) merged[k] = v;
  for (const auto& [k, v] : merged) base.emplace_back(k, Value::string(v));
  base.emplace_back("tools", tools);
  base.emplace_back("documents", Value::none());
  if (extra.isDict())
    for (const auto& [k, v] : extra.dictObj().entries) base.emplace_back(k, v);
  // Later entries win (Frame::set overwrites): --var values override a row's own extras, and
  // "true"/"false" are booleans, as enable_thinking=False is in Python (the string "false" would
  // be truthy, and `enable_thinking is false` would never hold).
  for (const auto& [k, v] : options.variables) base.emplace_back(k, templateVariableValue(v));

  std::vector<const void*> tracked;
  if (options.computeMessageSpans)
    for (const auto& m : messages) tracked.push_back(m.object().get());
  jinja::RenderOutput full = renderOnce(base, messages, options.addGenerationPrompt, options,
                                        options.computeMessageSpans ? &tracked : nullptr);
  RenderResult result;
  result.text = std::move(full.text);
  if (template_->hasGeneration()) {
    std::vector<ByteSpan> spans;
    for (const auto& [b, e] : full.generationSpans) spans.push_back(ByteSpan{b, e});
    result.generationSpans = std::move(spans);
  }
  if (!options.computeMessageSpans || messages.empty()) return result;

  auto bos = merged.find("bos_token");
  const int64_t bosEnd = bos != merged.end() && !bos->second.empty() && startsWith(result.text, bos->second)
                             ? int64_t(bos->second.size())
                             : 0;
  const SpanInputs in{base, messages, roles, contents, options, result.text, bosEnd};
  if (auto spans = spansFromLoop(in, full.trackedSpans))
    result.messages = std::move(*spans);
  else
    result.messages = spansFromPrefixes(in, full.trackedSpans);
  return result;
}

} // namespace maskscope
