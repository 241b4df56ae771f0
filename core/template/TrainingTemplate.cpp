// Probe conversations, closing-token detection and the verification of a training template.
// A probe the original template rejects (raise_exception: roles, tools it does not take) is skipped;
// at least one probe with an assistant reply must render, or nothing is given out.
#include "core/template/TrainingTemplate.h"

#include "core/template/JinjaChatTemplate.h"
#include "core/template/TrainingTemplateMarkers.h"
#include "core/template/jinja/Template.h"
#include "core/util/Error.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace maskscope {

namespace {

using ojson = nlohmann::ordered_json;

struct Probe {
  std::string name;
  ojson messages;
  ojson tools;
  ojson extra;
  bool generationPrompt = false;
};

ojson msg(const char* role, const char* content) { return {{"role", role}, {"content", content}}; }

std::vector<Probe> probes() {
  const ojson plain = {msg("user", "Probe question one?"), msg("assistant", "Probe answer one."),
                       msg("user", "Probe question two?"), msg("assistant", "Probe answer two.")};
  ojson withSystem = ojson::array({msg("system", "Probe system prompt.")});
  for (const auto& m : plain) withSystem.push_back(m);
  ojson toolCall = msg("assistant", "");
  toolCall["tool_calls"] =
      ojson::array({{{"type", "function"},
                     {"id", "call00001"},
                     {"function", {{"name", "get_weather"}, {"arguments", {{"city", "Paris"}}}}}}});
  ojson toolResult = msg("tool", "{\"temperature\": 20}");
  toolResult["tool_call_id"] = "call00001";
  const ojson withTools = {msg("user", "Weather in Paris?"), toolCall, toolResult,
                           msg("assistant", "It is 20 degrees.")};
  const ojson tools = ojson::array(
      {{{"type", "function"},
        {"function",
         {{"name", "get_weather"},
          {"description", "Current weather"},
          {"parameters",
           {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}, {"required", {"city"}}}}}}}});
  ojson reasoned = msg("assistant", "Probe answer one.");
  reasoned["reasoning_content"] = "Probe thought.";
  const ojson reasoning = {msg("user", "Probe question one?"), reasoned, msg("user", "Probe question two?"),
                           msg("assistant", "<think>\nProbe thought two.\n</think>\n\nProbe answer two.")};
  const ojson multi = {msg("user", "One?"),     msg("assistant", "A1."), msg("user", "Two?"),
                       msg("assistant", "A2."), msg("user", "Three?"),   msg("assistant", "A3.")};
  std::vector<Probe> out;
  for (bool gen : {false, true}) {
    const std::string g = gen ? " +generation prompt" : "";
    out.push_back({"plain" + g, plain, nullptr, nullptr, gen});
    out.push_back({"system" + g, withSystem, nullptr, nullptr, gen});
    out.push_back({"multi-turn" + g, multi, nullptr, nullptr, gen});
    out.push_back({"tools" + g, withTools, tools, nullptr, gen});
    out.push_back({"reasoning" + g, reasoning, nullptr, nullptr, gen});
    for (bool thinking : {false, true})
      out.push_back({std::string("reasoning enable_thinking=") + (thinking ? "true" : "false") + g, reasoning, nullptr,
                     ojson{{"enable_thinking", thinking}}, gen});
  }
  return out;
}

RenderResult renderProbe(const JinjaChatTemplate& t, const Probe& p, bool spans) {
  RenderOptions o;
  o.addGenerationPrompt = p.generationPrompt;
  o.now = "2024-07-26";
  o.computeMessageSpans = spans;
  return t.renderJson(p.messages, o, p.tools, p.extra);
}

// The first special token after the first assistant reply (earliest; longest on a tie).
// Where message k's text may end: the next message's content (or block) start. Block ends found by
// prefix renders stop at the content for templates that append text after the last message.
int64_t limitOf(const std::string& text, const std::vector<MessageSpan>& messages, size_t k) {
  for (size_t j = k + 1; j < messages.size(); ++j) {
    if (!messages[j].content.empty()) return std::max(messages[j].block.begin, messages[j].content.begin);
    if (!messages[j].block.empty()) return messages[j].block.begin;
  }
  return int64_t(text.size());
}

std::string findClosingToken(const std::string& text, const std::vector<MessageSpan>& messages,
                             const std::vector<std::string>& candidates) {
  for (size_t k = 0; k < messages.size(); ++k) {
    const MessageSpan& m = messages[k];
    if (m.role != "assistant" || m.content.empty()) continue;
    size_t best = std::string::npos;
    std::string token;
    for (const std::string& c : candidates) {
      if (c.empty()) continue;
      size_t at = text.find(c, size_t(m.content.end));
      if (at == std::string::npos || at >= size_t(limitOf(text, messages, k))) continue;
      if (at < best || (at == best && c.size() > token.size())) {
        best = at;
        token = c;
      }
    }
    if (!token.empty()) return token;
  }
  return {};
}

std::string excerpt(const std::string& s, size_t at) {
  size_t b = at > 20 ? at - 20 : 0;
  return ojson(s.substr(b, 60)).dump(-1, ' ', false, ojson::error_handler_t::replace);
}

std::string quoted(const std::string& s) { return ojson(s).dump(-1, ' ', false, ojson::error_handler_t::replace); }

// Generation spans, empty ones dropped and touching ones merged.
std::vector<ByteSpan> mergedSpans(const RenderResult& r) {
  std::vector<ByteSpan> out;
  if (!r.generationSpans) return out;
  for (const ByteSpan& s : *r.generationSpans) {
    if (s.empty()) continue;
    if (!out.empty() && out.back().end == s.begin)
      out.back().end = s.end;
    else
      out.push_back(s);
  }
  return out;
}

// Empty when the spans are the replies: each assistant content found verbatim gets exactly
// [content begin, end of the closing token after it); other spans stay inside assistant blocks.
std::string checkSpans(const RenderResult& orig, const RenderResult& patched, const std::string& closing) {
  std::vector<ByteSpan> spans = mergedSpans(patched);
  std::vector<bool> used(spans.size(), false);
  for (size_t k = 0; k < orig.messages.size(); ++k) {
    const MessageSpan& m = orig.messages[k];
    if (m.role != "assistant") continue;
    const int64_t limit = limitOf(orig.text, orig.messages, k);
    for (size_t i = 0; i < spans.size(); ++i)
      if (spans[i].begin >= m.block.begin && spans[i].end <= limit) used[i] = true;
    if (m.content.empty()) continue;
    size_t close = orig.text.find(closing, size_t(m.content.end));
    if (close == std::string::npos || close >= size_t(limit))
      return "message " + std::to_string(m.messageIndex) + ": no " + closing + " after the reply";
    // A reasoning block the template prints before the content is part of the reply.
    int64_t begin = m.content.begin;
    size_t think = orig.text.rfind("<think>", size_t(m.content.begin));
    if (think != std::string::npos && int64_t(think) >= m.block.begin) begin = std::min(begin, int64_t(think));
    ByteSpan want{begin, int64_t(close + closing.size())};
    if (std::none_of(spans.begin(), spans.end(),
                     [&](const ByteSpan& s) { return s.begin == want.begin && s.end == want.end; })) {
      std::string got = "none";
      for (const ByteSpan& s : spans)
        if (s.overlaps(want)) got = quoted(patched.text.substr(size_t(s.begin), size_t(s.size())));
      return "message " + std::to_string(m.messageIndex) + ": expected the generation span " +
             quoted(orig.text.substr(size_t(want.begin), size_t(want.size()))) + " at bytes [" +
             std::to_string(want.begin) + ", " + std::to_string(want.end) + "), got " + got;
    }
  }
  for (size_t i = 0; i < spans.size(); ++i)
    if (!used[i])
      return "generation span [" + std::to_string(spans[i].begin) + ", " + std::to_string(spans[i].end) +
             ") is outside every assistant message: " + excerpt(patched.text.substr(size_t(spans[i].begin)), 20);
  return {};
}

// Throws Error naming the first probe that differs.
int verify(const JinjaChatTemplate& patched, const std::vector<Probe>& ps, const std::vector<RenderResult>& origResults,
           const std::string& closing) {
  int checked = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    if (origResults[i].text.empty() && origResults[i].messages.empty()) continue; // the original rejected it
    RenderResult got;
    try {
      got = renderProbe(patched, ps[i], false);
    } catch (const std::exception& e) {
      throw Error("probe \"" + ps[i].name + "\": the patched template fails: " + e.what());
    }
    const std::string& want = origResults[i].text;
    if (got.text != want) {
      size_t at = 0;
      while (at < want.size() && at < got.text.size() && want[at] == got.text[at]) ++at;
      throw Error("probe \"" + ps[i].name + "\": the patched template renders different text from byte " +
                  std::to_string(at) + ": expected " + excerpt(want, at) + ", got " + excerpt(got.text, at));
    }
    std::string spanError = checkSpans(origResults[i], got, closing);
    if (!spanError.empty()) throw Error("probe \"" + ps[i].name + "\": " + spanError);
    ++checked;
  }
  return checked;
}

} // namespace

TrainingTemplateResult makeTrainingTemplate(const std::string& source,
                                            const std::map<std::string, std::string>& variables,
                                            const std::vector<std::string>& specialTokens) {
  TrainingTemplateResult r;
  try {
    JinjaChatTemplate original("template", source, variables);
    const std::vector<Probe> ps = probes();
    std::vector<RenderResult> origResults(ps.size());
    const RenderResult* firstReply = nullptr;
    std::string firstRefusal;
    for (size_t i = 0; i < ps.size(); ++i) {
      try {
        origResults[i] = renderProbe(original, ps[i], true);
      } catch (const jinja::TemplateLimitError& e) {
        throw Error("probe \"" + ps[i].name + "\": " + e.what()); // it would cost each probe the limit again
      } catch (const std::exception& e) {
        if (firstRefusal.empty()) firstRefusal = e.what();
        continue;
      }
      if (!firstReply) firstReply = &origResults[i];
    }
    if (!firstReply) throw Error("the template rejects every probe conversation (first: " + firstRefusal + ")");
    std::vector<std::string> candidates = specialTokens;
    auto eos = variables.find("eos_token");
    if (eos != variables.end()) candidates.push_back(eos->second);
    for (const char* t :
         {"<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<end_of_turn>", "<|end|>", "</s>", "<|endoftext|>"})
      candidates.emplace_back(t);
    r.closingToken = findClosingToken(firstReply->text, firstReply->messages, candidates);
    if (r.closingToken.empty()) throw Error("found no closing special token after the assistant's reply");
    MarkedSource marked = insertGenerationMarkers(original.compiled(), r.closingToken,
                                                  eos == variables.end() ? std::string() : eos->second);
    JinjaChatTemplate patched("patched", marked.source, variables);
    r.probesChecked = verify(patched, ps, origResults, r.closingToken);
    r.source = std::move(marked.source);
    r.wrapped = std::move(marked.wrapped);
    r.ok = true;
  } catch (const Error& e) {
    r.error = e.what();
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

} // namespace maskscope
