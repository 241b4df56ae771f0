// Preference rules: a DPO-style pair compares the log-probabilities of two replies to one prompt,
// so the prompt must be the same tokens in both sequences, and the template must render it inside
// each sequence exactly as it renders it alone (else prompt text is graded as completion).
#include "core/lint/LintRegistry.h"

#include <algorithm>

namespace maskscope {

namespace {

std::string excerpt(const std::string& text, size_t from) {
  std::string shown;
  for (size_t i = from; i < text.size() && shown.size() < 40; ++i)
    shown += text[i] == '\n' ? std::string("\\n") : std::string(1, text[i]);
  return "\"" + shown + (text.size() - from > 40 ? "…" : "") + "\"";
}

// Why the template's prompt inside one side differs from the prompt rendered alone, or "".
std::string renderedDifferently(const PreferenceSide& s, const char* name) {
  if (s.promptText.size() == s.promptRendered.size()) return {};
  return std::string("the template renders the prompt differently inside the ") + name +
         " sequence: " + num(int64_t(s.promptText.size())) + " of its " + num(int64_t(s.promptRendered.size())) +
         " bytes match, so TRL cuts the prompt there and grades the rest of the prompt (" +
         excerpt(s.promptRendered, s.promptText.size()) + ") as completion";
}

void preferencePromptMismatch(const PreferenceInput& in) {
  const EncodedPreference& p = in.pair;
  std::vector<std::string> why;
  bool gradesPrompt = false;
  for (const auto& [side, name] : {std::pair{&p.chosen, "chosen"}, std::pair{&p.rejected, "rejected"}}) {
    std::string w = renderedDifferently(*side, name);
    if (w.empty()) continue;
    gradesPrompt = true;
    why.push_back(std::move(w));
  }
  if (p.chosen.promptText != p.rejected.promptText) {
    const auto [a, b] = std::mismatch(p.chosen.promptText.begin(), p.chosen.promptText.end(),
                                      p.rejected.promptText.begin(), p.rejected.promptText.end());
    why.push_back("the prompt text differs between the two sequences from byte " +
                  num(int64_t(a - p.chosen.promptText.begin())) + " on");
  }
  std::optional<int64_t> position;
  const auto& jc = p.chosen.jointPromptIds;
  const auto& jr = p.rejected.jointPromptIds;
  if (jc != jr) {
    const auto [a, b] = std::mismatch(jc.begin(), jc.end(), jr.begin(), jr.end());
    const int64_t k = int64_t(a - jc.begin());
    position = k;
    why.push_back("tokenized as one text, the prompt's tokens differ from prompt token " + num(k) + " (chosen " +
                  (a == jc.end() ? std::string("ends") : "id " + num(*a)) + ", rejected " +
                  (b == jr.end() ? std::string("ends") : "id " + num(*b)) +
                  "): the reply's first characters merge with the prompt's last token in one of them");
  }
  if (why.empty()) return;
  const RowLocation at{p.sourceLine, p.sourceItem};
  std::string msg = locationLabel(p.rowIndex, at) + ": the prompt is not the same tokens in the chosen and rejected "
                                                    "sequences: ";
  for (size_t i = 0; i < why.size(); ++i) msg += (i ? "; " : "") + why[i];
  Finding f = makeFinding("preference-prompt-mismatch", p.rowIndex, position, msg,
                          gradesPrompt ? std::optional<Severity>(Severity::Error) : std::nullopt);
  locate(f, at);
  in.out.add(std::move(f));
}

} // namespace

const std::vector<LintRule>& preferenceRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info = {"preference-prompt-mismatch", S::Warning,
                "the prompt of a preference pair is not the same tokens in the chosen and rejected sequences",
                "DPO, IPO, ORPO and reward models compare how likely the model finds the chosen and the rejected reply "
                "to the same prompt. TRL builds each sequence from the prompt rendered alone with the generation "
                "prompt and the rest of the rendered prompt + reply, cut at their common prefix. When the template "
                "renders the prompt differently inside a sequence (a generation prompt that opens a <think> block the "
                "full conversation does not have, a system line that counts the messages), TRL's cut moves part of the "
                "prompt into the completion, where it is graded as if the model had written it (reported as an error). "
                "When the two prompts differ from each other, or tokenize differently when the whole sequence is one "
                "text (the reply's first characters merge with the prompt's last token), the two log-probabilities "
                "are taken under different contexts and their difference is no longer a preference between the "
                "replies. Fix: a template whose generation prompt is a prefix of the rendered reply, prompts that "
                "end at a token boundary (a newline or the template's header), replies that do not start by "
                "continuing the prompt's last word.",
                "preference data (prompt/chosen/rejected) + template + tokenizer"},
       .preference = preferencePromptMismatch},
  };
  return rules;
}

} // namespace maskscope
