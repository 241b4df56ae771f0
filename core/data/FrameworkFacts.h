// What a framework run (core/frameworks) knows about the batch it built, carried by Batch so that
// lint, the text form of the commands and the app can say which framework, version, collator and
// options produced it, and what happened to the rows on the way (dropped, markers not found).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

// One dataset row a framework treated specially (dropped, left all -100).
struct FrameworkRowNote {
  long row = -1;  // 0-based readable dataset row
  long line = -1; // its 1-based line in the file, -1 when unknown
  std::string reason;
};

struct FrameworkFacts {
  std::string framework;             // "trl"
  std::string version;               // "1.10"
  std::string collator;              // "DataCollatorForLanguageModeling"
  std::string description;           // one line: framework, version, collator and the options given
  std::string source;                // the spec file, or "inline"
  std::vector<std::string> warnings; // the framework's own warnings, worded as it prints them
  long rowsIn = 0;                   // dataset rows given to the framework
  long rowsPrepared = 0;             // rows after its dataset preparation (dropping, packing)
  // Rows the framework drops during preparation (TRL >= 1.x: nothing left graded after truncation).
  std::vector<FrameworkRowNote> dropped;
  // Rows the framework shortens without a word (LLaMA-Factory's cutoff_len: turns dropped, prompts cut
  // at their end, replies cut), with what was cut.
  std::vector<FrameworkRowNote> truncated;
  // Rows whose assistant tool_calls the framework drops without a word (torchtune's OpenAIToMessages
  // keeps only each message's content): lint's tools-not-rendered names them.
  std::vector<FrameworkRowNote> toolCallsDropped;
  // Rows whose image or video tokens the framework keeps while dropping their pixels (TRL 1.x's text
  // path: tokenize_fn keeps only input_ids and assistant_masks of the processor's output).
  std::vector<FrameworkRowNote> pixelsDropped;
  // Rows left entirely -100 because a response/instruction marker was never found (TRL 0.18's
  // DataCollatorForCompletionOnlyLM, Unsloth's train_on_responses_only).
  std::vector<FrameworkRowNote> markerNotFound;
  std::string markerOption; // the option naming that marker ("response_template")
  // assistant_only_loss asked of a template without {% generation %}: TRL stops with an error.
  bool assistantOnlyWithoutGeneration = false;
  bool masksLabelsByPadId = false; // the collator sets labels to -100 wherever input_ids == pad id
  // One flattened row whose examples are told apart only by position_ids (and cu_seq_lens), with no
  // attention_mask: correct only under an attention implementation that reads them (FlashAttention).
  bool paddingFree = false;
  // The framework's own option that keeps packed examples apart, where the run packs without it
  // (LLaMA-Factory: packing on, neat_packing off): lint's packing rules name it. Empty: none to name.
  std::string packingSeparationHint;
  std::string attnImplementation = "flash_attention_2"; // assumed unless the user says otherwise
  bool attnImplementationAssumed = true;
  bool labelsPreShifted = false;   // labels[t] = tokens[t + 1] as written (torchtune)
  bool legacyLastTurnOnly = false; // Axolotl's legacy path: only the last turn trained, silently
  // The Jinja chat template the framework chose itself (Axolotl's chat_template: chatml, ...), which
  // lint must judge instead of the tokenizer's own; empty when it rendered with the tokenizer's own.
  std::string chatTemplateText, chatTemplateOrigin;
  // A template in the framework's own format, not Jinja (LLaMA-Factory's `template: qwen3`): the
  // template rules, which read Jinja templates, do not run on it, and lint says so.
  std::string nativeTemplate;
  std::optional<int64_t> padTokenId, eosTokenId;
};

} // namespace maskscope
