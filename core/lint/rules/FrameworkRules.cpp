// Framework rules: the failure modes of the trainers whose batches maskscope reproduces
// (core/frameworks). They read what the framework run recorded (Batch::framework, FrameworkFacts):
// markers never found, rows dropped or shortened by truncation, media without pixels, assistant_only_loss
// without {% generation %}, pad == eos under pad-id masking, padding-free rows and the attention backend.
#include "core/lint/LintRegistry.h"
#include "core/mask/EffectiveAttention.h"
#include "core/mask/PackedSegments.h"
#include "core/util/Error.h"

namespace maskscope {

namespace {

std::string rowList(const std::vector<FrameworkRowNote>& rows, size_t shown = 8) {
  std::string out;
  for (size_t i = 0; i < rows.size() && i < shown; ++i) {
    out += (out.empty() ? "" : ", ") + std::to_string(rows[i].row);
    if (rows[i].line >= 0) out += " (line " + std::to_string(rows[i].line) + ")";
  }
  if (rows.size() > shown) out += ", ... (" + std::to_string(rows.size() - shown) + " more)";
  return out;
}

std::string who(const FrameworkFacts& f) { return f.framework + " " + f.version + " " + f.collator; }

std::string percent(long part, long whole) {
  if (whole <= 0) return "0%";
  return std::to_string(long(100.0 * double(part) / double(whole) + 0.5)) + "%";
}

bool markerNotFound(const BatchInput& in) {
  const FrameworkFacts* f = in.batch.framework.get();
  if (!f || f->markerNotFound.empty()) return true;
  const long n = long(f->markerNotFound.size());
  in.out.add("framework-marker-not-found", std::nullopt, std::nullopt,
             who(*f) + ": " + f->markerOption + " never found in " + std::to_string(n) + " of " +
                 std::to_string(f->rowsIn) + " rows (" + percent(n, f->rowsIn) +
                 "); those rows are entirely -100 and train nothing: dataset rows " + rowList(f->markerNotFound));
  return true;
}

bool rowsDropped(const BatchInput& in) {
  const FrameworkFacts* f = in.batch.framework.get();
  if (!f || f->dropped.empty()) return true;
  in.out.add("framework-rows-dropped", std::nullopt, std::nullopt,
             who(*f) + " drops " + std::to_string(f->dropped.size()) + " of " + std::to_string(f->rowsIn) +
                 " rows during dataset preparation (" + f->dropped.front().reason + "): dataset rows " +
                 rowList(f->dropped));
  return true;
}

bool rowsTruncated(const BatchInput& in) {
  const FrameworkFacts* f = in.batch.framework.get();
  if (!f || f->truncated.empty()) return true;
  in.out.add("framework-rows-truncated", std::nullopt, std::nullopt,
             who(*f) + " shortens " + std::to_string(f->truncated.size()) + " of " + std::to_string(f->rowsIn) +
                 " rows without a warning (first: dataset row " + std::to_string(f->truncated.front().row) + ", " +
                 f->truncated.front().reason + "): dataset rows " + rowList(f->truncated));
  return true;
}

bool pixelsDropped(const BatchInput& in) {
  const FrameworkFacts* f = in.batch.framework.get();
  if (!f || f->pixelsDropped.empty()) return true;
  in.out.add("framework-pixels-dropped", std::nullopt, std::nullopt,
             who(*f) + " trains " + std::to_string(f->pixelsDropped.size()) + " of " + std::to_string(f->rowsIn) +
                 " rows on image or video tokens without their pixels (first: dataset row " +
                 std::to_string(f->pixelsDropped.front().row) + ", " + f->pixelsDropped.front().reason +
                 "): the dataset is not a vision dataset to SFTTrainer, whose text path keeps only input_ids, so the "
                 "model embeds the placeholders as text: dataset rows " +
                 rowList(f->pixelsDropped));
  return true;
}

bool noGenerationMarkers(const BatchInput& in) {
  const FrameworkFacts* f = in.batch.framework.get();
  if (!f || !f->assistantOnlyWithoutGeneration) return true;
  in.out.add("framework-no-generation-markers", std::nullopt, std::nullopt,
             who(*f) + ": assistant_only_loss=True with a chat template that has no {% generation %} blocks: "
                       "the assistant mask is all zeros and TRL stops with RuntimeError before training");
  return true;
}

bool padIsEos(const BatchInput& in) {
  const FrameworkFacts* f = in.batch.framework.get();
  if (!f || !f->masksLabelsByPadId || !f->padTokenId || f->padTokenId != f->eosTokenId) return true;
  const Batch& b = in.batch;
  int64_t eosMasked = 0;
  for (int64_t r = 0; r < b.batchSize(); ++r)
    for (int64_t t = 0; t < b.length(); ++t)
      if (b.inputIds.at(r, t) == *f->eosTokenId && b.attentionMask.at(r, t) != 0 && b.labels.at(r, t) == kIgnoreIndex)
        ++eosMasked;
  if (int64_t* run = in.options.eosUngradedInRun) eosMasked = *run += eosMasked;
  in.out.add("framework-pad-is-eos", std::nullopt, std::nullopt,
             who(*f) + " sets labels to -100 wherever input_ids == pad_token_id, and pad_token_id == eos_token_id (" +
                 std::to_string(*f->padTokenId) + "): " + std::to_string(eosMasked) +
                 " real EOS positions are ungraded, so the model never learns to stop");
  return true;
}

bool paddingFreeAttention(const BatchInput& in) {
  const FrameworkFacts* f = in.batch.framework.get();
  if (!f || !f->paddingFree) return true;
  // Judged with the masks of core/mask/EffectiveAttention.h, as packing-depends-on-attention judges them:
  // this finding states the reliance when the implementation used keeps the examples apart; when it does
  // not, packing-depends-on-attention (or packing-cross-attention) reports the leak instead.
  AttnChoice choice;
  std::vector<std::string> leaking;
  std::string rule;
  try {
    choice = chooseAttnImplementation(in.batch, in.options.attnImplementation);
    for (AttnImplementation impl : kAttnImplementations) {
      const EffectiveMask m = effectiveAttention(in.batch, impl);
      int64_t leaks = 0;
      for (int64_t r = 0; r < in.batch.batchSize(); ++r) leaks += m.crossExampleCells(r, segmentsOfRow(in.batch, r));
      if (impl == choice.implementation) {
        if (leaks > 0) return true;
        rule = m.rule;
      } else if (leaks > 0) {
        leaking.push_back(attnImplementationName(impl));
      }
    }
  } catch (const Error&) {
    return true;
  }
  std::string msg = who(*f) +
                    " builds a padding-free row: no attention_mask, examples told apart only by "
                    "position_ids (and cu_seq_lens). Under " +
                    std::string(attnImplementationName(choice.implementation)) +
                    (choice.assumed ? " (assumed: " + choice.why + ")" : "") + " they stay apart: " + rule;
  if (!leaking.empty()) {
    std::string names;
    for (const std::string& n : leaking) names += (names.empty() ? "" : ", ") + n;
    msg += "; under " + names + " the examples would attend to each other";
  }
  in.out.add("framework-padding-free-attention", std::nullopt, std::nullopt, msg, Severity::Warning);
  return true;
}

} // namespace

const std::vector<LintRule>& frameworkRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info = {"framework-marker-not-found", S::Error, "a response/instruction template was never found in some rows",
                "Collators that find the reply by a marker (TRL 0.18's DataCollatorForCompletionOnlyLM with "
                "response_template / instruction_template, Unsloth's train_on_responses_only) search the token ids "
                "for the marker's ids. When the marker is tokenized differently in context (a leading space or "
                "newline merges into another token), or truncation cut it off, it is not found and the whole row "
                "becomes -100: it costs compute and trains nothing, and TRL only prints a warning. Fix: pass the "
                "marker as the token ids it has inside the rendered text (tokenize a real row and copy them), or "
                "raise max_length.",
                "a framework spec (marker-based collator)"},
       .beforeRows = markerNotFound},
      {.info = {"framework-rows-dropped", S::Warning, "the framework drops rows during its dataset preparation",
                "Several frameworks drop rows while preparing the dataset, and those rows never reach training. "
                "TRL (1.x) truncates rows to max_length and then drops every row whose labels are all -100 (a long "
                "prompt with truncation_mode=keep_start leaves no reply). Axolotl drops rows shorter than "
                "min_sample_len or, with excess_length_strategy: drop, longer than sequence_len. Unsloth's "
                "train_on_responses_only drops rows left entirely -100. LLaMA-Factory drops examples its converter "
                "rejects (an even number of prompt messages, ...) and, when packing, examples longer than "
                "cutoff_len. The message gives the framework's own reason and the dataset rows. Fix: raise the "
                "length limit, shorten prompts, use keep_end where the version supports it, or repair the rows the "
                "converter rejects.",
                "a framework spec (TRL 1.x, Axolotl, Unsloth, LLaMA-Factory)"},
       .beforeRows = rowsDropped},
      {.info = {"framework-rows-truncated", S::Warning, "the framework shortens rows without a warning",
                "LLaMA-Factory fits every example into cutoff_len turn by turn (infer_seqlen): a long prompt is cut "
                "from its end (the question loses its last words while the answer stays), a long reply is cut "
                "before its end-of-turn token (the model is taught not to stop), both are cut in proportion when "
                "both are long, and the turns that no longer fit are dropped. It logs nothing. Fix: raise "
                "cutoff_len to the longest example (maskscope collate --stage prepared shows the lengths), or drop "
                "or split long examples before training.",
                "a framework spec (LLaMA-Factory cutoff_len)"},
       .beforeRows = rowsTruncated},
      {.info = {"framework-pixels-dropped", S::Error, "image or video tokens reach the model without their pixels",
                "TRL's SFTTrainer (1.6, 1.10) decides from the dataset's first row whether it is a vision dataset: "
                "only an \"image\" or \"images\" column sends it to DataCollatorForVisionLanguageModeling, which "
                "passes the pixels. Any other dataset takes the text path, where the model's processor still "
                "expands each image or video part into its placeholder tokens, but tokenize_fn keeps only input_ids "
                "(and assistant_masks) of the processor's output: pixel_values and pixel_values_videos are dropped. "
                "The model then reads hundreds of placeholder embeddings as if they were text, and learns to answer "
                "about pictures it never sees. It happens with video-only rows, and with image rows after a first "
                "row without images. Fix: give the dataset an \"images\" column (the first row decides), so that "
                "SFTTrainer "
                "treats it as a vision dataset; TRL's vision collator reads images only, so give a "
                "video as sampled frames or train it with a framework that passes videos; or remove the media "
                "parts from rows meant to be text.",
                "a framework spec (TRL 1.x text path with media parts)"},
       .beforeRows = pixelsDropped},
      {.info = {"framework-no-generation-markers", S::Error,
                "assistant_only_loss with a chat template without {% generation %}",
                "TRL's assistant_only_loss=True asks transformers' apply_chat_template for the assistant mask, "
                "which only {% generation %} ... {% endgeneration %} blocks in the chat template produce. The stock "
                "templates of Llama 3, Qwen3, Gemma 3 and most others have none, so the mask is all zeros and TRL "
                "stops with a RuntimeError. Fix: write a training copy of the template with markers "
                "(maskscope patch-template) and pass it as chat_template_path / --template.",
                "a framework spec with assistant_only_loss and text rows"},
       .beforeRows = noGenerationMarkers},
      {.info = {"framework-pad-is-eos", S::Error, "pad == eos under a collator that masks labels by pad id",
                "transformers' DataCollatorForLanguageModeling(mlm=False), and TRL 0.18's collators built on it, "
                "set labels to -100 wherever input_ids equals the pad id. When the tokenizer's pad token is its "
                "EOS (a common fix for tokenizers without a pad token), every real EOS loses its label too, so the "
                "model is never taught to stop and generates on. Fix: give the tokenizer a distinct pad token "
                "(e.g. <|finetune_right_pad_id|> or a new token), or use a collator that pads labels with -100 "
                "instead of masking by id.",
                "a framework spec (pad-id masking collator)"},
       .beforeRows = padIsEos},
      {.info = {"framework-padding-free-attention", S::Warning,
                "a padding-free batch relies on the attention implementation",
                "Padding-free batches (TRL padding_free, DataCollatorWithFlattening, TRL 0.18 padding_free) put "
                "several examples into one row without an attention_mask; only position_ids (restarting at 0) and "
                "cu_seq_lens say where one example ends. FlashAttention 2/3 (attn_implementation="
                "\"flash_attention_2\") splits the row there; transformers >= 4.53 also splits it under \"sdpa\", "
                "\"eager\" and \"flex_attention\" from the position_ids (never from cu_seq_lens) because no mask "
                "is passed, and older versions do not at all. This warning states the implementation the batch relies "
                "on (assumed flash_attention_2 unless the spec or --attn-implementation says otherwise, as TRL "
                "requires for padding_free) and the transformers rule that keeps the examples apart; when the "
                "implementation used does not, packing-depends-on-attention reports the leak instead. Fix: keep that "
                "implementation (and transformers >= 4.53 for sdpa/eager), or turn padding_free off.",
                "a framework spec (padding-free collator)"},
       .beforeRows = paddingFreeAttention},
  };
  return rules;
}

} // namespace maskscope
