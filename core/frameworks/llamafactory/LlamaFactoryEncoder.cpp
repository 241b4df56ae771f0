// LLaMA-Factory's message encoding: slots -> ids, turns -> (prompt, response) pairs, and the reasoning
// template's <think> rules, line by line after template.py (ff6d4d1).
#include "core/frameworks/llamafactory/LlamaFactoryEncoder.h"
#include "core/frameworks/llamafactory/LlamaFactoryTools.h"

#include "core/util/Error.h"

namespace maskscope::llamafactory {

Encoder::Encoder(const Template& t, const Tokenizer& tokenizer, bool splitSpecialTokens)
    : t_(t), tok_(tokenizer), fixed_(fixSpecialTokens(t, tokenizer)), splitSpecialTokens_(splitSpecialTokens) {}

// tokenizer.encode(text, add_special_tokens=False), with the tokenizer's split_special_tokens.
Ids Encoder::encodeText(const std::string& text) const {
  EncodeOptions eo;
  eo.splitSpecialTokens = splitSpecialTokens_;
  eo.tokenStrings = false;
  return tok_.encode(text, eo).ids;
}

// _convert_elements_to_ids: text pieces tokenized one by one (an empty string adds nothing), the BOS /
// EOS sets only when the tokenizer has that token.
Ids Encoder::toIds(const Slots& elements) const {
  Ids ids;
  for (const Slot& s : elements) {
    switch (s.kind) {
    case Slot::Kind::Text:
      if (!s.text.empty()) {
        for (const std::string& added : fixed_.addedTokens)
          if (s.text.find(added) != std::string::npos)
            throw Error("the text holds " + added +
                        ", a token LLaMA-Factory adds to this tokenizer's vocabulary "
                        "with a new id; maskscope cannot reproduce its tokenization");
        const Ids e = encodeText(s.text);
        ids.insert(ids.end(), e.begin(), e.end());
      }
      break;
    case Slot::Kind::Bos:
      if (fixed_.bos) ids.push_back(*fixed_.bos);
      break;
    case Slot::Kind::Eos:
      if (fixed_.eos) ids.push_back(*fixed_.eos);
      break;
    case Slot::Kind::Token: {
      auto id = tok_.tokenToId(s.text);
      if (!id) throw Error("template " + t_.name + ": token " + s.text + " is not in the tokenizer");
      ids.push_back(*id);
      break;
    }
    }
  }
  return ids;
}

std::vector<EncodedMessage> Encoder::encodeMessages(const std::vector<LfMessage>& messages, const std::string& system,
                                                    const std::string& tools) const {
  const std::string& sys = system.empty() ? t_.defaultSystem : system; // system or self.default_system
  const bool llama2 = t_.templateClass == TemplateClass::Llama2;
  std::vector<EncodedMessage> out;
  for (size_t i = 0; i < messages.size(); ++i) {
    const LfMessage& m = messages[i];
    Slots elements;
    std::string systemText; // Llama2Template: fused into the first user message
    if (i == 0) {
      elements = t_.prefix;
      if (!sys.empty() || !tools.empty()) { // if system or tools
        const std::string toolText = tools.empty() ? std::string() : formatTools(t_.toolsFormat, tools, t_.toolDate);
        Slots s = applySlots(t_.system, sys + toolText);
        if (llama2) {
          systemText = s.empty() ? std::string() : s.front().text; // format_system.apply(...)[0]
        } else {
          elements.insert(elements.end(), s.begin(), s.end());
        }
      }
    }
    const std::string idx = std::to_string(i / 2);
    Slots part;
    std::vector<std::string> calls;
    if (m.role == "user") {
      part = llama2 ? applySlots(t_.user, systemText + m.content) : applySlots(t_.user, m.content, &idx);
    } else if (m.role == "assistant") {
      part = applySlots(t_.assistant, m.content);
    } else if (m.role == "observation") {
      part = applySlots(t_.observation, m.content);
    } else if (m.role == "function") {
      // Template._encode passes thought_words and tool_call_words; Llama2Template._encode neither.
      const std::pair<WordPair, WordPair> words{{t_.thoughtOpen, t_.thoughtClose}, {t_.toolCallOpen, t_.toolCallClose}};
      FormattedCalls f = formatFunction(t_.functionFormat, m.content, llama2 ? nullptr : &words);
      part = applySlots(t_.function, f.text);
      calls = std::move(f.names);
    } else {
      throw Error("message " + std::to_string(i) + " has role " + m.role + " (LLaMA-Factory: Unexpected role)");
    }
    // Slots are tokenized one by one, so the lead-in's ids are a prefix of the message's.
    EncodedMessage em;
    em.leadIn = toIds(elements).size();
    elements.insert(elements.end(), part.begin(), part.end());
    em.ids = toIds(elements);
    em.calls = std::move(calls);
    out.push_back(std::move(em));
  }
  return out;
}

bool Encoder::hasThought(const std::string& content) const {
  auto strip = [](std::string s) {
    const char* ws = " \t\n\r\f\v";
    size_t b = s.find_first_not_of(ws), e = s.find_last_not_of(ws);
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  return content.find(strip(t_.thoughtOpen)) != std::string::npos ||
         content.find(strip(t_.thoughtClose)) != std::string::npos;
}

std::string Encoder::removeThought(const std::string& content) const {
  // re.sub(escape(open) + "(.*?)" + escape(close), "", content, flags=DOTALL): each match is the first
  // close after an open; an open without a close after it ends the matches.
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t open = content.find(t_.thoughtOpen, pos);
    if (open == std::string::npos) break;
    const size_t close = content.find(t_.thoughtClose, open + t_.thoughtOpen.size());
    if (close == std::string::npos) break;
    out += content.substr(pos, open - pos);
    pos = close + t_.thoughtClose.size();
  }
  out += content.substr(pos);
  const size_t first = out.find_first_not_of('\n'); // .lstrip("\n")
  return first == std::string::npos ? std::string() : out.substr(first);
}

std::vector<std::pair<EncodedMessage, EncodedMessage>> Encoder::encodeMultiturn(std::vector<LfMessage> messages,
                                                                                const std::string& system,
                                                                                const std::string& tools,
                                                                                bool discardingHistoryCot) const {
  const bool reasoning = t_.templateClass == TemplateClass::Reasoning;
  if (reasoning && t_.enableThinking == false) // remove all cot
    for (size_t i = 1; i < messages.size(); i += 2) messages[i].content = removeThought(messages[i].content);
  if (reasoning && discardingHistoryCot) // keep the last turn's
    for (size_t i = 1; i + 2 < messages.size(); i += 2) messages[i].content = removeThought(messages[i].content);

  std::vector<EncodedMessage> encoded = encodeMessages(messages, system, tools);
  if (reasoning) {
    std::vector<size_t> turns;
    if (discardingHistoryCot) {
      if (messages.size() >= 2) turns.push_back(messages.size() - 2);
    } else {
      for (size_t i = 0; i + 1 < messages.size(); i += 2) turns.push_back(i);
    }
    const Ids empty = encodeText(t_.thoughtOpen + t_.thoughtClose); // get_thought_word_ids
    for (size_t i : turns) {
      if (hasThought(messages[i + 1].content)) continue;
      if (!t_.enableThinking.value_or(false)) { // "not enable_thinking": None counts as off here
        encoded[i].ids.insert(encoded[i].ids.end(), empty.begin(), empty.end()); // not graded
      } else {
        encoded[i + 1].ids.insert(encoded[i + 1].ids.begin(), empty.begin(), empty.end()); // graded
      }
    }
  }
  std::vector<std::pair<EncodedMessage, EncodedMessage>> pairs;
  for (size_t i = 0; i + 1 < encoded.size(); i += 2) pairs.emplace_back(encoded[i], encoded[i + 1]);
  return pairs;
}

} // namespace maskscope::llamafactory
