// Template and tokenizer rules: what the chat template and tokenizer do before any collator runs
// (end token vs EOS, pad token, generation markers, prefix preservation) and, per conversation,
// control tokens typed into content and tokens that straddle the prompt/reply boundary.
#include "core/collate/TemplateVariables.h"
#include "core/collate/TrainServeDiff.h"
#include "core/lint/LintRegistry.h"
#include "core/lint/TemplateChecks.h"

#include <algorithm>
#include <cctype>

namespace maskscope {

namespace {

std::string quoted(const Tokenizer& tok, int64_t id) {
  return "\"" + tok.idToToken(int32_t(id)) + "\" (id " + num(id) + ")";
}

void padTokenMissing(const TemplateInput& in) {
  const Tokenizer& tok = in.encoder.tokenizer();
  const SpecialTokenIds sp = specialTokenIds(tok, in.render);
  if (sp.pad || (in.collator && !in.collator->padToken.empty())) return;
  in.out.add("pad-token-missing", std::nullopt, std::nullopt,
             "the tokenizer has no pad token" +
                 (sp.eos ? "; padding falls back to EOS " + quoted(tok, *sp.eos) : std::string("; padding uses id 0")));
}

void eosMismatch(const TemplateInput& in) {
  const Tokenizer& tok = in.encoder.tokenizer();
  const SpecialTokenIds sp = specialTokenIds(tok, in.render);
  if (!in.markers.closingToken || !sp.eos || *in.markers.closingToken == *sp.eos) return;
  in.out.add("eos-mismatch", std::nullopt, std::nullopt,
             "the template '" + in.encoder.chatTemplate().name() + "' closes assistant replies with " +
                 quoted(tok, *in.markers.closingToken) + ", but the tokenizer's EOS is " + quoted(tok, *sp.eos));
}

// Only where TRL's assistant_only_loss is what the collator mirrors (trl-* presets, custom specs):
// maskscope's own presets locate replies from the message contents.
bool mirrorsTrl(const CollatorSpec& collator) {
  if (collator.name.rfind("trl-", 0) == 0) return true;
  for (const CollatorPreset& p : collatorPresets())
    if (collator.name == p.name || collator.name.rfind(p.name + ",", 0) == 0) return false;
  return true;
}

void templateNoGenerationMarkers(const TemplateInput& in) {
  const ChatTemplate& tpl = in.encoder.chatTemplate();
  if (!in.collator || in.collator->labels != LabelMode::AssistantOnly || !mirrorsTrl(*in.collator) ||
      tpl.hasGenerationMarkers())
    return;
  in.out.add("template-no-generation-markers", std::nullopt, std::nullopt,
             "collator '" + in.collator->name + "' grades assistant replies only, but the template '" + tpl.name() +
                 "' has no {% generation %} blocks (TRL's assistant_only_loss would find no reply tokens)");
}

// Over the probe conversation: the render of the first k messages vs the full render.
void templateNotPrefixPreserving(const TemplateInput& in) {
  const std::vector<Message>& msgs = in.markers.probeMessages;
  const std::string& full = in.markers.probe.text;
  if (msgs.size() < 2 || full.empty()) return;
  const ChatTemplate& tpl = in.encoder.chatTemplate();
  RenderOptions ro = in.render;
  ro.addGenerationPrompt = false;
  for (size_t k = 1; k < msgs.size(); ++k) {
    RenderResult rr;
    try {
      rr = tpl.render(std::vector<Message>(msgs.begin(), msgs.begin() + long(k)), ro);
    } catch (const std::exception&) {
      continue; // a template may refuse a prefix (e.g. one that must end with a user turn): not a finding
    }
    if (full.starts_with(rr.text)) continue;
    size_t d = 0;
    while (d < rr.text.size() && d < full.size() && rr.text[d] == full[d]) ++d;
    in.out.add("template-not-prefix-preserving", std::nullopt, std::nullopt,
               "the template '" + tpl.name() + "' renders the first " + num(int64_t(k)) +
                   " messages of a probe chat differently from the same messages inside the full chat (texts differ "
                   "from byte " +
                   num(int64_t(d)) + ")");
    return;
  }
}

// Control-token-looking markers in a rendered text: "<|...|>", "<word_word>" / "</word_word>" (Gemma's
// <start_of_turn>), and the template's bos/eos token strings where it prints them. In text order.
std::vector<std::string> controlMarkers(const std::string& text, const RenderOptions& render) {
  std::vector<std::string> found;
  auto add = [&](std::string m) {
    if (!m.empty() && std::find(found.begin(), found.end(), m) == found.end()) found.push_back(std::move(m));
  };
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    if (text[i] != '<') continue;
    if (text[i + 1] == '|') {
      const size_t end = text.find("|>", i + 2);
      if (end != std::string::npos && end - i <= 64 && text.find_first_of("<\n", i + 1) > end)
        add(text.substr(i, end + 2 - i));
      continue;
    }
    size_t j = i + 1 + (text[i + 1] == '/');
    const size_t nameBegin = j;
    while (j < text.size() && j - i <= 64 && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    const std::string name = text.substr(nameBegin, j - nameBegin);
    if (j < text.size() && text[j] == '>' && name.find('_') != std::string::npos && name.front() != '_')
      add(text.substr(i, j + 1 - i));
  }
  for (const char* key : {"bos_token", "eos_token"}) {
    auto it = render.variables.find(key);
    if (it != render.variables.end() && it->second.size() >= 3 && text.find(it->second) != std::string::npos)
      add(it->second);
  }
  return found;
}

void templateTokensNotSpecial(const TemplateInput& in) {
  std::string text = in.markers.probe.text;
  if (!in.markers.probeMessages.empty()) {
    RenderOptions ro = in.render;
    ro.addGenerationPrompt = true;
    ro.computeMessageSpans = false;
    try {
      text += "\n" + in.encoder.chatTemplate().render(in.markers.probeMessages, ro).text;
    } catch (const std::exception&) {
      // a template may refuse a generation prompt after a reply: the probe alone is checked
    }
  }
  const Tokenizer& tok = in.encoder.tokenizer();
  for (const std::string& marker : controlMarkers(text, in.render)) {
    const Encoding e = tok.encode(marker, {});
    if (e.size() <= 1) continue;
    std::string pieces;
    for (size_t k = 0; k < e.size() && k < 8; ++k) pieces += std::string(k ? ", " : "") + "\"" + e.tokens[k] + "\"";
    if (e.size() > 8) pieces += ", ...";
    in.out.add("template-tokens-not-special", std::nullopt, std::nullopt,
               "the template '" + in.encoder.chatTemplate().name() + "' writes \"" + marker +
                   "\", but the tokenizer (" + tok.source() + ") encodes it as " + num(int64_t(e.size())) +
                   " ordinary tokens (" + pieces +
                   ") instead of one special token; use the template that ships with this tokenizer (omit "
                   "--template), or the tokenizer the template was written for");
  }
}

// The reasoning an assistant message holds: its reasoning_content field, else the text between
// <think> and </think> of its content (as the Qwen3 template splits it), trimmed of newlines.
std::string reasoningOf(const Message& m) {
  std::string r;
  if (m.extra.is_object() && m.extra.contains("reasoning_content") && m.extra["reasoning_content"].is_string()) {
    r = m.extra["reasoning_content"].get<std::string>();
  } else {
    const size_t close = m.content.find("</think>");
    if (close == std::string::npos) return {};
    r = m.content.substr(0, close);
    const size_t open = r.rfind("<think>");
    if (open != std::string::npos) r = r.substr(open + 7);
  }
  const size_t b = r.find_first_not_of('\n');
  if (b == std::string::npos) return {};
  return r.substr(b, r.find_last_not_of('\n') + 1 - b);
}

void thinkHistoryStripped(const ConversationInput& in) {
  if (!in.conversation || in.conversation->plainText) return;
  const std::vector<Message>& msgs = in.conversation->messages;
  std::vector<int> dropped;
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (msgs[i].role != "assistant") continue;
    const std::string reasoning = reasoningOf(msgs[i]);
    if (!reasoning.empty() && in.encoded.text.find(reasoning) == std::string::npos) dropped.push_back(int(i));
  }
  if (dropped.empty()) return;
  std::optional<int64_t> at;
  for (size_t t = 0; t < in.encoded.tokens.size() && !at; ++t)
    if (in.encoded.tokens[t].messageIndex == dropped.front()) at = int64_t(t);
  std::string list;
  for (int i : dropped) list += std::string(list.empty() ? "" : ", ") + num(i);
  in.emit("think-history-stripped", at,
          in.label() + ": the reasoning (<think>...</think>) of assistant message" + (dropped.size() > 1 ? "s " : " ") +
              list +
              " is not in the rendered text: the template drops it from earlier turns, so that reasoning is "
              "never trained on, and the replies after it are trained without the reasoning that led to them");
}

// The first special token inside a message's content: (message, token index), or token -1.
std::pair<const MessageSpan*, int64_t> firstInjection(const TokenizedConversation& tc) {
  for (const MessageSpan& m : tc.messages) {
    if (m.content.empty()) continue;
    for (size_t i = 0; i < tc.tokens.size(); ++i) {
      const TokenInfo& t = tc.tokens[i];
      if (t.special && !t.span.empty() && m.content.overlaps(t.span)) return {&m, int64_t(i)};
    }
  }
  return {nullptr, -1};
}

// Every message whose content holds text that became a special token: one finding each, naming the
// message, its role and the tokens (user messages too: a forged turn end there is a prompt injection).
void specialTokenInjection(const ConversationInput& in) {
  const TokenizedConversation& tc = in.encoded;
  for (const MessageSpan& m : tc.messages) {
    if (m.content.empty()) continue;
    int64_t first = -1, count = 0;
    std::string texts;
    for (size_t i = 0; i < tc.tokens.size(); ++i) {
      const TokenInfo& t = tc.tokens[i];
      if (!t.special || t.span.empty() || !m.content.overlaps(t.span)) continue;
      if (first < 0) first = int64_t(i);
      const std::string text = tc.text.substr(size_t(t.span.begin), size_t(t.span.size()));
      if (++count <= 3) texts += (texts.empty() ? "\"" : ", \"") + text + "\" (id " + num(t.id) + ")";
    }
    if (first < 0) continue;
    in.emit("special-token-injection", first,
            in.label() + ": the content of message " + num(m.messageIndex) + " (" + m.role + ") contains " + texts +
                (count > 3 ? " and " + num(count - 3) + " more" : "") +
                ": the tokenizer turns that text into the control token" + (count > 1 ? "s" : "") +
                ", first at position " + num(first));
  }
}

void boundaryMerge(const ConversationInput& in) {
  const TokenizedConversation& tc = in.encoded;
  // An injected control token shifts the reply spans: special-token-injection reports the row.
  if (firstInjection(tc).second >= 0) return;
  for (const MessageSpan& m : tc.messages) {
    if (m.role != "assistant" || m.content.empty()) continue;
    for (size_t i = 0; i < tc.tokens.size(); ++i) {
      const TokenInfo& t = tc.tokens[i];
      if (t.span.begin >= m.content.begin || t.span.end <= m.content.begin) continue;
      in.emit("boundary-merge", int64_t(i),
              in.label() + ": token " + num(int64_t(i)) + " (\"" + t.text +
                  "\") spans the end of the prompt and the start of the reply of message " + num(m.messageIndex));
      return;
    }
  }
}

} // namespace

// The render-prefix checks (boundary-merge, template-not-prefix-preserving) of one conversation.
void runPrefixChecks(const ConversationEncoder& enc, const RenderOptions& render, const Conversation& conv,
                     const TokenizedConversation& full, FindingCollector& out) {
  if (conv.plainText) return;
  int last = -1;
  for (size_t i = 0; i < conv.messages.size(); ++i)
    if (conv.messages[i].role == "assistant") last = int(i);
  if (last < 0) return;
  const long row = conv.rowIndex;
  const RowLocation location{conv.sourceLine, conv.sourceItem};
  auto emit = [&](const char* rule, std::optional<int64_t> position, const std::string& message) {
    Finding f = makeFinding(rule, row, position, locationLabel(row, location) + ": " + message);
    locate(f, location);
    out.add(std::move(f));
  };
  RenderOptions ro = render;
  ro.addGenerationPrompt = true;
  if (ro.tools.is_null() && !conv.tools.is_null()) ro.tools = conv.tools;
  if (ro.extra.is_null() && !conv.extraVariables.is_null()) ro.extra = conv.extraVariables;
  std::vector<Message> prompt(conv.messages.begin(), conv.messages.begin() + last);
  RenderResult rr;
  try {
    rr = renderForModel(enc.chatTemplate(), prompt, ro);
  } catch (const std::exception&) {
    return; // the template refuses this prompt alone; the full render was fine
  }
  if (!full.text.starts_with(rr.text)) {
    emit("template-not-prefix-preserving", std::nullopt,
         "the prompt rendered with add_generation_prompt=True is not the start of the full render, so a mask "
         "computed from the prompt's length points at the wrong tokens");
    return;
  }
  Encoding pe = enc.tokenizer().encode(rr.text, {});
  for (size_t i = 0; i < pe.size(); ++i) {
    if (i >= full.tokens.size() || full.tokens[i].id != pe.ids[i]) {
      emit("boundary-merge", int64_t(i),
           "the prompt's " + num(int64_t(pe.size())) +
               " tokens are not a prefix of the full tokenization (they differ at position " + num(int64_t(i)) + ")");
      return;
    }
  }
}

// The assistant turns of a row train-serve-mismatch compares (each costs one render of its prefix).
constexpr size_t kTrainServeTurns = 32;

void runTrainServeChecks(const DatasetPipeline& pipeline, const Conversation& conv, const TokenizedConversation& full,
                         FindingCollector& out) {
  std::vector<TurnDiff> turns;
  try {
    turns = diffTrainServe(pipeline, conv, full, kTrainServeTurns);
  } catch (const std::exception&) {
    return; // the template refuses a prefix of the conversation alone; the full render was fine
  }
  const Tokenizer& tok = pipeline.tokenizer();
  auto piece = [&](const std::optional<int32_t>& id) {
    return id ? "\"" + tok.displayText(*id) + "\"" : std::string("nothing");
  };
  const RowLocation location{conv.sourceLine, conv.sourceItem};
  for (const TurnDiff& t : turns) {
    // A reply the training row does not hold is message-dropped-by-template's or reply-truncated's.
    if (t.verdict == TrainServeVerdict::Identical || !t.trainHasReply) continue;
    const TokenDifference& d = t.differences.front();
    std::string where = t.verdict == TrainServeVerdict::DifferentStart     ? "in the special tokens it starts with"
                        : t.verdict == TrainServeVerdict::DiffersInContext ? "in the context before the reply"
                                                                           : "in the reply";
    Finding f = makeFinding(
        "train-serve-mismatch", conv.rowIndex, d.trainPosition,
        locationLabel(conv.rowIndex, location) + ": assistant message " + num(t.message) +
            " is trained on other tokens than a server gives the model when it generates it, " + where + " (" +
            trainServeVerdictName(t.verdict) + "): " + num(int64_t(t.differences.size())) +
            (t.differences.size() == 1 ? " token differs" : " tokens differ") + ", the first at training position " +
            num(d.trainPosition) + " (training " + piece(d.train) + ", serving " + piece(d.serve) +
            "); maskscope render-diff --row " + num(conv.rowIndex) + " lists them");
    locate(f, location);
    out.add(std::move(f));
  }
}

// train-serve-mismatch's entry (its check is runTrainServeChecks, called by the dataset linter).
LintRule trainServeMismatchRule() {
  using S = Severity;
  return {
      .info = {
          "train-serve-mismatch", S::Warning,
          "an assistant turn is trained on other tokens than the model sees when it generates it",
          "Training renders the whole conversation through the chat template; a server renders only the messages "
          "before the reply, adds the generation prompt, and lets the model write the reply. When the two token "
          "sequences differ, the model learns each reply after a context it never gets when deployed, or learns to "
          "write other tokens than the reply it will be asked for. Qwen3's template strips the reasoning of earlier "
          "turns and writes an empty <think></think> block into the last turn only; enable_thinking=False puts that "
          "block into the generation prompt instead; a tokenizer that adds a BOS on top of the template's (or a text "
          "that already starts with one) gives the training rows a double BOS no server sends. A tool-call turn is "
          "generated as the template writes the calls (a server's tool parser reads them back); Mistral v0.3's "
          "template lists the tools before the last user message only, so a call trained in an earlier user turn "
          "never saw the tool list a server gives it. The check compares, "
          "per assistant turn, the collated training row with the serving render (see maskscope render-diff) on the "
          "first 32 assistant turns of the first 16 rows of a dataset, the budget of the render-prefix checks (each "
          "turn costs one render), and counts every turn that differs. Fix: train on what you serve: build one "
          "example per assistant turn from "
          "its own serving prefix, keep reasoning the same way in every trained turn (or mask the turns whose "
          "reasoning the template strips), pass the same enable_thinking to training and serving, and let either the "
          "template or the tokenizer add the BOS, not both.",
          "template + tokenizer (datasets)"}};
}

const std::vector<LintRule>& templateRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info =
           {"special-token-injection", S::Warning, "message content contains text that tokenizes to a control token",
            "Special-token strings such as '<|im_end|>' typed inside a message are, by default, turned into the real "
            "control token by the tokenizer (transformers' split_special_tokens=False). The model then sees a turn end "
            "in the middle of a message, the masks built from the template shift, and user-supplied text can forge "
            "turns (a prompt-injection route). Every message is checked, user messages included, and each one "
            "that holds such text is named. Fix: clean such strings from the data, or tokenize with "
            "split_special_tokens=True so they stay ordinary text.",
            "template + tokenizer (datasets)", Scope::Data},
       .conversation = specialTokenInjection},
      {.info =
           {"template-no-generation-markers", S::Warning,
            "assistant-only grading was asked but the template has no {% generation %}",
            "TRL's assistant_only_loss=True (and apply_chat_template(return_assistant_tokens_mask=True)) finds the "
            "reply tokens from {% generation %} ... {% endgeneration %} blocks in the chat template. Most templates "
            "shipped with models do not have them; then the assistant mask is all zeros (nothing is graded) or TRL "
            "raises. maskscope recovered the replies from the message roles instead (each reply's content and closing "
            "token, in every turn alike; collate says \"replies: recovered from the message roles\"), so what it shows "
            "is what TRL would "
            "grade with markers, not what it grades without. Fix: write a training template with `maskscope "
            "patch-template`, use a template with generation markers (the built-in '*-assistant-mask' variants) or "
            "completion_only_loss on "
            "prompt/completion data.",
            "template + collator"},
       .once = templateNoGenerationMarkers},
      {.info =
           {"boundary-merge", S::Warning, "a token straddles the prompt/reply boundary, so the mask is off by one",
            "Reply masks are usually built by tokenizing the prompt alone and taking its length as the start of the "
            "reply. When the tokenizer merges the last characters of the prompt with the first of the reply (for "
            "example ' [/INST]' + ' Sure' or a header newline fused with the first word), the prompt tokens are not a "
            "prefix of the full tokenization and the boundary lands one token early or late: a prompt token is graded "
            "or the first reply token is not. TRL warns 'Mismatch between tokenized prompt and the start of tokenized "
            "prompt+completion'. Fix: end the template's headers with a special token or newline that cannot merge, or "
            "compute masks from offsets / {% generation %} spans instead of prompt lengths.",
            "template + tokenizer"},
       .conversation = boundaryMerge}, // and runPrefixChecks
      {.info =
           {"template-not-prefix-preserving", S::Warning,
            "rendering the first k messages is not a prefix of the full render",
            "Multi-turn masking and incremental tokenization assume that the text for the first k messages is the "
            "start of the text for all of them. Templates that rewrite earlier turns (dropping reasoning, moving the "
            "system prompt into the last user turn, adding a date) break this, so masks computed per turn point at the "
            "wrong tokens. Fix: compute masks from the full render ({% generation %} spans), or use a template that "
            "renders earlier turns the same way in every prefix.",
            "template + tokenizer"},
       .once = templateNotPrefixPreserving}, // and runPrefixChecks
      trainServeMismatchRule(),
      {.info =
           {"eos-mismatch", S::Warning, "the template's end-of-turn token differs from the tokenizer's EOS",
            "The token that closes each assistant turn in the template is what the fine-tuned model learns to emit "
            "when it is done. generate() stops on the tokenizer's / generation_config's eos_token_id. If the two "
            "differ (a ChatML template on a tokenizer whose EOS is </s>, or Llama-3's <|eot_id|> vs <|end_of_text|>), "
            "the model emits its end-of-turn token and generation keeps going. Fix: set tokenizer.eos_token (and "
            "generation_config.eos_token_id) to the template's end-of-turn token, or list both in eos_token_id.",
            "template + tokenizer"},
       .once = eosMismatch},
      {.info =
           {"template-tokens-not-special", S::Error,
            "a control marker the template writes is not one special token of the tokenizer",
            "Chat templates frame turns with control markers ('<|start_header_id|>', '<|im_start|>', "
            "'<start_of_turn>') that the model's tokenizer encodes as one special token each. A template paired with "
            "another model's tokenizer (a Llama-3 template on the Qwen tokenizer, a ChatML template on a Llama-2 "
            "tokenizer) still renders, but each marker silently becomes several ordinary tokens ('<', '|', 'start', "
            "...): the sequence is longer, role headers are ordinary text the model must learn from scratch, "
            "end-of-turn detection and stop tokens never match, and masks located by special tokens miss. Fix: use "
            "the chat template that ships with the tokenizer (omit --template), or the tokenizer the template was "
            "written for; to introduce new markers deliberately, add them with tokenizer.add_special_tokens and "
            "resize the model's embeddings.",
            "template + tokenizer"},
       .once = templateTokensNotSpecial},
      {.info =
           {"think-history-stripped", S::Warning, "reasoning in earlier assistant turns is dropped by the template",
            "Reasoning templates (Qwen3, DeepSeek-R1 style) render <think>...</think> only for the reply after the "
            "last user message and strip it from earlier assistant turns, because at inference the model never sees "
            "its old reasoning. A dataset that stores reasoning in earlier turns (in the content or in "
            "reasoning_content) loses it in training: those thoughts are never graded, and the replies after them are "
            "trained without the reasoning that produced them. Fix: split multi-turn reasoning chats into one example "
            "per assistant turn (each ending at that turn, so its reasoning is the last), or drop the reasoning from "
            "earlier turns in the data on purpose; check what the template renders with `maskscope render`.",
            "template + tokenizer (datasets)", Scope::Data},
       .conversation = thinkHistoryStripped},
      {.info =
           {"pad-token-missing", S::Info, "the tokenizer has no pad token; padding falls back to EOS",
            "Many base-model tokenizers define no pad token, and the usual quick fix is tokenizer.pad_token = "
            "tokenizer.eos_token. That is fine as long as padding is masked by attention_mask and not by id; masking "
            "by id (DataCollatorForLanguageModeling) then also masks every real EOS (see stop-token-not-graded). Fix: "
            "add a dedicated pad token, or make sure labels are masked by position, not by id.",
            "tokenizer"},
       .once = padTokenMissing},
  };
  return rules;
}

} // namespace maskscope
