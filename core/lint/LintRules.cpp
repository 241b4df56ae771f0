// The rule catalogue. The explanations are the single source of `lint --explain`, the app's
// findings panel and docs/lint-rules.md; write them for someone fine-tuning their first model.
#include "core/lint/LintTypes.h"

namespace maskscope {

const char* severityName(Severity s) {
  switch (s) {
  case Severity::Info:
    return "info";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "?";
}

const std::vector<RuleInfo>& allRules() {
  using S = Severity;
  static const std::vector<RuleInfo> rules = {
      {"shape-mismatch", S::Error, "input_ids, attention_mask, labels and position_ids differ in shape",
       "The four tensors of a causal-LM batch are read position by position: attention_mask[b][t] says whether "
       "position t of row b is real text, labels[b][t] says what the model is graded on there, position_ids[b][t] "
       "tells the rotary embedding where the token sits. They must all be [batch, seq_len]. When one is shorter "
       "or has a different number of rows, PyTorch either raises a shape error deep inside the model or, worse, "
       "broadcasts and silently applies the wrong mask to the wrong tokens. This usually means a custom collator "
       "padded input_ids but not labels (or the reverse). Fix: pad every field to the same length in the collator "
       "(transformers' DataCollatorForSeq2Seq pads labels with label_pad_token_id=-100 for you).",
       "batch"},
      {"attention-mask-not-binary", S::Error,
       "attention_mask holds values other than 0/1 that are not packing segment ids",
       "attention_mask is read as 1 = attend to this key, 0 = hide it. Packing collators may instead write segment "
       "ids (1, 2, 3, ... one per packed example, 0 for padding), meaning attention stays inside a segment; each "
       "segment is then one contiguous run. Negative values, or ids that come back after another segment started, "
       "are neither: the eager/SDPA path treats every non-zero value as 'attend', so the model ends up attending "
       "somewhere the collator did not intend. Fix: emit 0/1 (and let position_ids carry the packing), or proper "
       "contiguous segment ids as axolotl's sample packing does.",
       "batch"},
      {"label-out-of-range", S::Error, "a label is neither -100 nor a valid token id",
       "PyTorch's cross-entropy looks labels up in the vocabulary-sized logits; -100 (ignore_index) is the only "
       "value it skips. Any other negative number, or an id at or above the vocabulary size, makes CUDA fail with "
       "a device-side assert (\"Assertion t >= 0 && t < n_classes failed\") and the CPU raise an IndexError. Common "
       "causes: padding labels with a pad id of -1, using a label_pad_token_id other than -100, or a tokenizer "
       "that was extended with new tokens while the model's embeddings were not resized. Fix: pad labels with "
       "-100 and call model.resize_token_embeddings(len(tokenizer)) after adding tokens.",
       "batch (vocabulary size from the tokenizer, else the largest input id)"},
      {"input-id-out-of-range", S::Error, "an input id is negative or not below the vocabulary size",
       "Every input id indexes a row of the embedding matrix. An id outside [0, vocab_size) crashes the embedding "
       "lookup (a CUDA device-side assert) or, with a model whose embeddings are larger than the tokenizer, feeds "
       "an untrained random vector. This happens when a batch was tokenized with a different tokenizer than the "
       "one used to lint or train, or when tokens were added without resizing the model. Fix: tokenize with the "
       "model's own tokenizer and resize embeddings after adding tokens.",
       "batch + tokenizer"},
      {"pad-graded", S::Error, "padding positions carry real labels",
       "Labels decide what the model is graded on: at every position whose label is not -100 the loss asks the "
       "model to predict that token. Padding is not text, so its labels must be -100. When labels are a plain "
       "copy of input_ids (labels = input_ids, or DataCollatorForLanguageModeling with pad_token = eos_token) "
       "every pad becomes a training target: the model spends its gradient learning to predict pad after pad, "
       "the real tokens' share of the loss shrinks, and it learns to emit pad/EOS too early. Fix: set labels to "
       "-100 wherever attention_mask == 0 (labels[attention_mask == 0] = -100), or use DataCollatorForSeq2Seq / "
       "TRL's SFTTrainer, which do this.",
       "batch (padding from the collator, attention_mask, or trailing pad ids)"},
      {"pad-attended", S::Error, "attention_mask is 1 on padding",
       "attention_mask tells each query which keys exist: 1 = real token, 0 = padding. When padding is marked 1 "
       "(for example padding='max_length' with a hand-built mask of all ones) the real tokens can attend to pads. "
       "With right padding and causal attention the real tokens never look forward, so only the pads themselves "
       "are affected (reported as a warning); with left padding or pads in the middle of a row the real tokens "
       "read the pad embeddings and their outputs change (an error). Either way padding='max_length' with an "
       "all-ones mask is a sign the mask was not built by the tokenizer. Fix: use the attention_mask the tokenizer "
       "or collator returns (tokenizer(..., padding=True) gives 0 on pads).",
       "batch (padding from the collator, attention_mask, or trailing pad ids)"},
      {"stop-token-not-graded", S::Error, "the end-of-turn token that closes a reply is -100",
       "A chat model learns to stop by being graded on the token that ends its reply (<|im_end|>, <|eot_id|>, "
       "</s>, ...). If that position's label is -100 the model never practises ending a turn, and at inference it "
       "rambles on into an invented next turn. The classic cause is tokenizer.pad_token = tokenizer.eos_token "
       "with DataCollatorForLanguageModeling: it sets labels to -100 wherever input_ids == pad_token_id, which "
       "also masks every real EOS. Fix: give the tokenizer a distinct pad token (add '<pad>' or use an unused "
       "reserved token), or mask padding by attention_mask instead of by id; keep the closing token inside the "
       "graded span (TRL's assistant_only_loss with a {% generation %} template includes it).",
       "roles (a collated dataset, or a dump with --template and --tokenizer); without roles, the EOS id"},
      {"prompt-graded", S::Error, "system/user/template tokens carry labels while only replies should be graded",
       "In supervised fine-tuning on chats you normally grade the model only on what the assistant says: system "
       "prompts, user turns and the template's headers get label -100. When some of those positions keep their "
       "token ids as labels, the model is also trained to write the user's side of the conversation and the "
       "template scaffolding, and the loss you watch mixes both. A partly graded prompt (say, the assistant header "
       "'<|im_start|>assistant\\n' graded) is usually an off-by-one in a hand-written masking loop. Fix: use TRL's "
       "SFTTrainer with assistant_only_loss=True (needs a template with {% generation %}) or completion_only_loss "
       "on prompt/completion data, or DataCollatorForCompletionOnlyLM with the exact response template ids.",
       "roles"},
      {"full-sequence-labels", S::Info, "every non-padding token is graded (full-sequence training)",
       "Labels cover the prompt as well as the replies, as with DataCollatorForLanguageModeling or labels = "
       "input_ids with pads masked. That is continued pre-training, not reply-only SFT: the model is also trained "
       "to write user turns and template text. It is a legitimate choice, so this is information only. If you "
       "meant to train on replies only, use assistant_only_loss=True or completion_only_loss in TRL.",
       "roles"},
      {"last-turn-only", S::Error, "earlier assistant turns are ignored while the last is graded",
       "In a multi-turn chat every assistant reply is a training example. Collators that locate 'the response' "
       "by searching for the last response template (or by the prompt/completion split) grade only the final "
       "reply and set every earlier reply to -100, throwing away most of the data in long chats and teaching the "
       "model only how conversations end. Fix: grade every assistant turn (TRL assistant_only_loss=True with a "
       "{% generation %} template, or DataCollatorForCompletionOnlyLM with both instruction_template and "
       "response_template so every response span is found). When the split is deliberate (completion-only "
       "training) this is a warning.",
       "roles"},
      {"reply-truncated", S::Warning, "a graded reply is cut before its closing token",
       "Truncation (max_length with truncation=True) cut an assistant reply in the middle. Its tokens are still "
       "graded but the closing end-of-turn token is gone, so the model is taught replies that stop mid-sentence "
       "without ever ending, and long answers are systematically under-trained on their endings. Fix: raise "
       "max_length, filter or split over-long conversations, or truncate whole turns from the start of the "
       "conversation instead of cutting the end.",
       "roles"},
      {"no-graded-tokens", S::Warning, "a row has every label -100",
       "A row (or packed example) whose labels are all -100 adds nothing to the loss but still costs a forward "
       "and backward pass, and it changes how a batch mean is weighted. It usually means truncation removed the "
       "reply (the prompt alone is longer than max_length), the response template was not found "
       "(DataCollatorForCompletionOnlyLM warns 'Could not find response key'), or the conversation has no "
       "assistant turn. Fix: raise max_length, truncate from the left, or drop such rows before training.",
       "batch"},
      {"batch-nothing-graded", S::Error, "a whole (micro-)batch has no graded position",
       "When every label of a batch is -100 the mean cross-entropy is 0/0: transformers returns a NaN loss and "
       "the NaN gradient can poison the optimizer state. It happens with a short dataset of prompt-only rows, with "
       "aggressive truncation, or when a masking collator never finds the reply. Fix: drop rows with no graded "
       "token before batching (see no-graded-tokens).",
       "batch"},
      {"packing-cross-attention", S::Error, "packed examples can attend to each other",
       "Packing puts several short examples into one row to avoid padding. The attention mask must then keep "
       "each example to itself; an all-ones mask lets every token of the second example read the first one, "
       "which leaks unrelated text into its context (the model learns spurious dependencies and the loss is lower "
       "than it should be). Resetting position_ids alone does not stop this on the eager or SDPA attention paths; "
       "it only does with FlashAttention's varlen path (attn_implementation='flash_attention_2'), which splits "
       "sequences where position ids restart. Fix: use TRL's padding_free=True with flash_attention_2, "
       "DataCollatorWithFlattening, or a block-diagonal mask (segment ids in attention_mask, as axolotl's "
       "sample packing). A padding-free row (one row, position ids restarting) is reported as a warning: it is "
       "correct only under varlen attention.",
       "batch (segments from the collator, segment ids, position-id resets)"},
      {"position-ids-not-reset", S::Error, "packed examples continue position ids from the previous example",
       "Position ids tell rotary (or absolute) position embeddings where each token sits in its sequence. In a "
       "packed row each example should start again at position 0; when position ids run 0..T-1 across the whole "
       "row, the second example's first token is treated as if it were at position 700, so the model trains on "
       "position patterns it never sees at inference and FlashAttention's varlen path cannot find the example "
       "boundaries. Fix: emit position_ids that restart per example (DataCollatorWithFlattening, TRL "
       "padding_free, axolotl sample packing all do).",
       "batch (packed rows)"},
      {"left-pad-positions", S::Warning, "left padding without position ids that skip the pads",
       "With left padding the real text starts after the pads. If position_ids are not given, or count the pads "
       "(0..T-1), the first real token gets a position such as 37 instead of 0. Rotary models are mostly "
       "insensitive to a shift of every position (attention depends on distances), but absolute-position models "
       "(GPT-2 style) and long rows are not, and the shift differs from row to row, so identical prompts train "
       "differently depending on their neighbours. transformers' generate() computes position_ids = "
       "attention_mask.cumsum(-1) - 1 for this reason. Fix: pass position_ids that skip the pads, or use right "
       "padding for training (tokenizer.padding_side = 'right').",
       "batch"},
      {"right-pad-generation", S::Error, "a generation batch is right-padded",
       "For generation the model appends new tokens at the end of each row. With right padding the pads sit "
       "between the prompt and the new tokens, so the model continues from a pad token and outputs garbage; "
       "transformers warns 'A decoder-only architecture is being used, but right-padding was detected'. Fix: "
       "tokenizer.padding_side = 'left' before tokenizing prompts for generate() (keep right padding for "
       "training). Checked only when linting a generation batch (--generation).",
       "batch + --generation"},
      {"labels-preshifted", S::Error, "labels are already shifted by one (the model shifts again)",
       "In transformers the causal-LM model shifts labels itself: logits at position t are compared with "
       "labels[t + 1]. So labels must be aligned with input_ids (labels[t] == input_ids[t] or -100). If the "
       "collator already shifted them (labels[t] == input_ids[t + 1], as in a hand-written GPT training loop) "
       "they are shifted twice and the model is trained to predict the token two steps ahead: the loss stays "
       "high and generations come out garbled. Fix: pass labels = input_ids (masked with -100) and let the model "
       "shift.",
       "batch"},
      {"label-not-input-id", S::Warning, "graded labels differ from the input id at their position",
       "In the transformers convention a graded label is the input id at the same position (the model shifts). "
       "Labels that are neither -100, nor that id, nor a one-step shift of it, mean labels and input_ids come "
       "from different tokenizations (for example the reply tokenized separately from the prompt), so the model "
       "is graded on tokens that are not in its input. Fix: build labels from the same input_ids tensor.",
       "batch"},
      {"duplicate-bos", S::Warning, "BOS appears twice at a sequence start (template plus tokenizer)",
       "Many chat templates already start with the BOS token ({{ bos_token }}), and tokenizers add another one "
       "when called with add_special_tokens=True (the default of tokenizer(text)). The result, <s><s>..., is a "
       "sequence the model never saw in pre-training and slightly shifts everything after it. Fix: tokenize the "
       "rendered chat with add_special_tokens=False (apply_chat_template(tokenize=True) does this), or turn off "
       "the collator's add_bos.",
       "batch (BOS id)"},
      {"special-token-injection", S::Warning, "message content contains text that tokenizes to a control token",
       "Special-token strings such as '<|im_end|>' typed inside a message are, by default, turned into the real "
       "control token by the tokenizer (transformers' split_special_tokens=False). The model then sees a turn end "
       "in the middle of a message, the masks built from the template shift, and user-supplied text can forge "
       "turns (a prompt-injection route). Fix: clean such strings from the data, or tokenize with "
       "split_special_tokens=True so they stay ordinary text.",
       "template + tokenizer (datasets)"},
      {"template-no-generation-markers", S::Warning,
       "assistant-only grading was asked but the template has no {% generation %}",
       "TRL's assistant_only_loss=True (and apply_chat_template(return_assistant_tokens_mask=True)) finds the "
       "reply tokens from {% generation %} ... {% endgeneration %} blocks in the chat template. Most templates "
       "shipped with models do not have them; then the assistant mask is all zeros (nothing is graded) or TRL "
       "raises. maskscope fell back to locating replies from the message contents. Fix: use a template with "
       "generation markers (the built-in '*-assistant-mask' variants) or completion_only_loss on "
       "prompt/completion data.",
       "template + collator"},
      {"boundary-merge", S::Warning, "a token straddles the prompt/reply boundary, so the mask is off by one",
       "Reply masks are usually built by tokenizing the prompt alone and taking its length as the start of the "
       "reply. When the tokenizer merges the last characters of the prompt with the first of the reply (for "
       "example ' [/INST]' + ' Sure' or a header newline fused with the first word), the prompt tokens are not a "
       "prefix of the full tokenization and the boundary lands one token early or late: a prompt token is graded "
       "or the first reply token is not. TRL warns 'Mismatch between tokenized prompt and the start of tokenized "
       "prompt+completion'. Fix: end the template's headers with a special token or newline that cannot merge, or "
       "compute masks from offsets / {% generation %} spans instead of prompt lengths.",
       "template + tokenizer"},
      {"template-not-prefix-preserving", S::Warning,
       "rendering the first k messages is not a prefix of the full render",
       "Multi-turn masking and incremental tokenization assume that the text for the first k messages is the "
       "start of the text for all of them. Templates that rewrite earlier turns (dropping reasoning, moving the "
       "system prompt into the last user turn, adding a date) break this, so masks computed per turn point at the "
       "wrong tokens. Fix: compute masks from the full render ({% generation %} spans), or use a template that "
       "renders earlier turns the same way in every prefix.",
       "template + tokenizer"},
      {"eos-mismatch", S::Warning, "the template's end-of-turn token differs from the tokenizer's EOS",
       "The token that closes each assistant turn in the template is what the fine-tuned model learns to emit "
       "when it is done. generate() stops on the tokenizer's / generation_config's eos_token_id. If the two "
       "differ (a ChatML template on a tokenizer whose EOS is </s>, or Llama-3's <|eot_id|> vs <|end_of_text|>), "
       "the model emits its end-of-turn token and generation keeps going. Fix: set tokenizer.eos_token (and "
       "generation_config.eos_token_id) to the template's end-of-turn token, or list both in eos_token_id.",
       "template + tokenizer"},
      {"pad-token-missing", S::Info, "the tokenizer has no pad token; padding falls back to EOS",
       "Many base-model tokenizers define no pad token, and the usual quick fix is tokenizer.pad_token = "
       "tokenizer.eos_token. That is fine as long as padding is masked by attention_mask and not by id; masking "
       "by id (DataCollatorForLanguageModeling) then also masks every real EOS (see stop-token-not-graded). Fix: "
       "add a dedicated pad token, or make sure labels are masked by position, not by id.",
       "tokenizer"},
      {"row-skipped", S::Warning, "a dataset row could not be read and was skipped",
       "The row is not valid JSON, has none of the known shapes (messages, prompt/completion, ShareGPT, Alpaca), "
       "has a message without a role, content that is not a string, or invalid UTF-8. It was skipped and the other "
       "rows were linted. The same row would make datasets.load_dataset or the trainer fail or silently drop it. "
       "Fix the row at the line shown.",
       "dataset"},
      {"rules-not-run", S::Info, "some rules need more input than was given",
       "Role-aware rules (prompt-graded, last-turn-only, stop-token-not-graded, reply-truncated) need to know which "
       "positions are system, user, assistant or template text. A batch dump holds only ids, so pass --template "
       "and --tokenizer (the ones that produced it) and maskscope recovers the roles by matching the template's "
       "role headers and footers in the ids. Rules that need a vocabulary size need --tokenizer.",
       "-"},
  };
  return rules;
}

const RuleInfo* findRule(std::string_view name) {
  for (const RuleInfo& r : allRules())
    if (r.name == name) return &r;
  return nullptr;
}

std::string rulesMarkdown() {
  std::string md = "# Lint rules\n\n"
                   "Generated from core/lint/LintRules.cpp (the text `maskscope lint --explain RULE` prints and the "
                   "app shows). Do not edit by hand; tests/lint checks that this file matches.\n\n"
                   "| rule | severity | fires when |\n| --- | --- | --- |\n";
  for (const RuleInfo& r : allRules())
    md += "| `" + std::string(r.name) + "` | " + severityName(r.severity) + " | " + std::string(r.title) + " |\n";
  for (const RuleInfo& r : allRules()) {
    md += "\n## " + std::string(r.name) + "\n\n";
    md += "*" + std::string(severityName(r.severity)) + "* — " + std::string(r.title) +
          ". Needs: " + std::string(r.needs) + ".\n\n";
    md += std::string(r.explanation) + "\n";
  }
  return md;
}

} // namespace maskscope
