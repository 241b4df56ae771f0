// SFTTrainer with a vision dataset, TRL 1.10 (commit f2cd577, trl/trainer/sft_trainer.py): the
// refusals of a vision-language model (packing, padding_free, assistant_only_loss, keep_end), no
// dataset preparation, and DataCollatorForVisionLanguageModeling: its language-modeling path
// (apply_chat_template, the processor's tokenization with add_special_tokens=False and truncation to
// max_length keeping the start, labels = input_ids with only the padding -100: TRL leaves vision tokens
// graded) and its prompt-completion path (the completion only, under completion_only_loss).
#include "core/data/ContentParts.h"
#include "core/data/RowShapes.h"
#include "core/frameworks/ChatTokenization.h"
#include "core/frameworks/FrameworkBatch.h"
#include "core/frameworks/FrameworkRows.h"
#include "core/frameworks/trl/Trl.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope::trl {

namespace {

SourceLocation at(const FrameworkSpec& s, const char* key) { return {s.source, -1, -1, -1, key}; }

bool messagesHoldImages(const OrderedJson& messages) {
  if (!messages.is_array()) return false;
  for (const auto& m : messages)
    if (m.is_object() && m.contains("content") && m["content"].is_array())
      for (const auto& part : m["content"])
        if (isImagePart(part)) return true;
  return false;
}

// The ValueErrors SFTTrainer.__init__ raises for a vision-language model, in its order, then the
// collator's own: completion_only_loss on messages rows, pad_to_multiple_of on prompt-completion rows.
void refuseVisionSettings(const FrameworkSpec& s, bool promptCompletion) {
  if (s.flag("packing"))
    throw Error("Packing is not supported for vision-language models. Please set `packing=False` in the SFTConfig.",
                at(s, "packing"));
  if (s.flag("padding_free"))
    throw Error("Padding-free training is yet not supported for vision-language models. Please set "
                "`padding_free=False` in the `SFTConfig`.",
                at(s, "padding_free"));
  if (s.flag("assistant_only_loss"))
    throw Error("Assistant-only loss is not yet supported for vision-language models. Please set "
                "`assistant_only_loss=False` in the `SFTConfig`.",
                at(s, "assistant_only_loss"));
  if (s.optionalInteger("max_length") && s.string("truncation_mode") == "keep_end")
    throw Error("truncation_mode='keep_end' is not supported for vision-language models. Image tokens reside inside "
                "the prompt portion of the sequence; depending on the example, keep_end may silently drop them, "
                "causing pixel_values to be forwarded to the model with no corresponding visual tokens in input_ids. "
                "Use truncation_mode='keep_start' (the default) or set max_length=None.",
                at(s, "truncation_mode"));
  const OrderedJson& col = s.value("completion_only_loss");
  if (!promptCompletion && col.is_boolean() && col.get<bool>())
    throw Error("The `completion_only_loss` argument is not supported for language modeling datasets.",
                at(s, "completion_only_loss"));
  if (promptCompletion && s.optionalInteger("pad_to_multiple_of"))
    throw Error("NotImplementedError: Padding to a multiple of a value is not yet implemented for vision-language "
                "modeling and prompt-completion data.",
                at(s, "pad_to_multiple_of"));
}

// _collate_prompt_completion for one row: apply_chat_template (data_utils.py) renders the prompt with
// the generation prompt and prompt + completion, and keeps their common prefix as the prompt; the
// processor tokenizes the prompt (expanding its images) and the completion apart; the two are
// concatenated (flush_left leaves each row [prompt, completion, padding]) and cut to max_length.
// Labels: the completion only under completion_only_loss (None: true for these rows), else all.
PreparedRow promptCompletionRow(const InputRow& row, const FrameworkContext& ctx, const Tokenizer& tok,
                                bool completionOnly) {
  std::vector<Message> prompt = messagesOf(row, row.value["prompt"], "prompt"), all = prompt;
  const std::vector<Message> completion = messagesOf(row, row.value["completion"], "completion");
  if (prompt.empty() || prompt.back().role == "assistant" || prompt.back().role == "system")
    throwRowError(row, "prompt",
                  "the prompt must end with a user or tool message (an assistant one is continued with "
                  "continue_final_message, which maskscope does not reproduce)");
  if (!imagePartsOf(completion).empty() || !videoPartsOf(completion).empty())
    throwRowError(row, "completion", "image parts in the completion: TRL passes the images with the prompt only");
  all.insert(all.end(), completion.begin(), completion.end());
  ChatTemplateCall generation;
  generation.addGenerationPrompt = true;
  const TokenizedText p = applyChatTemplateTokens(tok, *ctx.chatTemplate, prompt, ctx.render, generation);
  const TokenizedText full = applyChatTemplateTokens(tok, *ctx.chatTemplate, all, ctx.render, ChatTemplateCall{});
  if (!full.text.starts_with(p.text))
    throwRowError(row, "prompt",
                  "the rendered prompt is not a prefix of prompt + completion (TRL keeps their common prefix, "
                  "which maskscope does not reproduce)");
  EncodeOptions eo;
  eo.addSpecialTokens = false;
  eo.tokenStrings = false;
  const std::vector<int32_t> c = tok.encode(std::string_view(full.text).substr(p.text.size()), eo).ids;
  PreparedRow out;
  std::vector<int64_t> ids = p.inputIds, mask(p.inputIds.size(), 0);
  out.meta = p.meta;
  ids.insert(ids.end(), c.begin(), c.end());
  mask.insert(mask.end(), c.size(), 1);
  // The completion's roles: the whole conversation's tail when it tokenized the same way.
  const bool sameTail = full.inputIds.size() >= c.size() &&
                        std::equal(c.begin(), c.end(), full.inputIds.end() - std::ptrdiff_t(c.size()));
  for (size_t i = 0; i < c.size(); ++i) {
    PositionMeta m;
    m.kind = PositionKind::Assistant;
    m.reply = true;
    out.meta.push_back(sameTail ? full.meta[full.meta.size() - c.size() + i] : m);
  }
  const std::optional<int64_t> maxLength = ctx.spec.optionalInteger("max_length");
  truncateSequence(ids, maxLength, false);
  truncateSequence(mask, maxLength, false);
  truncateSequence(out.meta, maxLength, false);
  std::vector<int64_t> labels = ids;
  if (completionOnly)
    for (size_t i = 0; i < labels.size(); ++i)
      if (mask[i] == 0) labels[i] = kIgnoreIndex;
  out.set("input_ids", std::move(ids));
  out.set("labels", std::move(labels)); // the collator sets the padding to -100
  return out;
}

} // namespace

bool isVisionDataset(const OrderedJson& firstRow) {
  if (!firstRow.is_object()) return false;
  if (firstRow.contains("image") || firstRow.contains("images")) return true; // SFTTrainer's own test
  for (const char* key : {"messages", "prompt", "completion"})
    if (firstRow.contains(key) && messagesHoldImages(firstRow[key])) return true;
  return false;
}

std::vector<PreparedRow> prepareVision(const std::vector<InputRow>& rows, FrameworkContext& ctx) {
  const FrameworkSpec& s = ctx.spec;
  if (!s.behaves("vision_language_collator"))
    throw Error("rows with images: TRL " + s.version +
                    "'s vision path is not reproduced (maskscope reads DataCollatorForVisionLanguageModeling from "
                    "TRL 1.10); give \"version\": \"1.10\"",
                at(s, "version"));
  // torch_call: "messages" rows take the language-modeling path, "prompt" + "completion" rows the other.
  const bool promptCompletion = !rows.front().value.contains("messages") && rows.front().value.contains("prompt") &&
                                rows.front().value.contains("completion");
  refuseVisionSettings(s, promptCompletion);
  ctx.resolved["vision_language_collator"] = true;          // the collate step's key order
  const OrderedJson& col = s.value("completion_only_loss"); // SFTTrainer: None is true for prompt-completion
  const bool completionOnly = promptCompletion && !(col.is_boolean() && !col.get<bool>());
  const Tokenizer& tok = ctx.requireTokenizer("rows with images");
  const std::optional<int64_t> maxLength = s.optionalInteger("max_length");
  std::vector<PreparedRow> out;
  out.reserve(rows.size());
  for (const InputRow& row : rows) {
    if (promptCompletion) {
      if (!row.value.contains("prompt") || !row.value.contains("completion"))
        throwRowError(row, "prompt", "the first row is prompt-completion; this one is not (one dataset, one shape)");
      PreparedRow r = promptCompletionRow(row, ctx, tok, completionOnly);
      r.sourceRows = {row.index};
      r.sourceLines = {row.line};
      out.push_back(std::move(r));
      continue;
    }
    if (!row.value.contains("messages"))
      throwRowError(row, row.value.contains("prompt") ? "prompt" : "messages",
                    "DataCollatorForVisionLanguageModeling's text path is not reproduced: give each row as "
                    "\"messages\" with image parts, or as \"prompt\" and \"completion\"");
    const std::vector<Message> messages = messagesOf(row, row.value["messages"], "messages");
    TokenizedText t = applyChatTemplateTokens(tok, *ctx.chatTemplate, messages, ctx.render, ChatTemplateCall{});
    std::vector<int64_t> ids = std::move(t.inputIds);
    truncateSequence(ids, maxLength, false); // processor(truncation=True): the tokenizer keeps the start
    truncateSequence(t.meta, maxLength, false);
    PreparedRow r;
    r.set("labels", ids); // every token graded; the collator sets the padding to -100
    r.set("input_ids", std::move(ids));
    r.meta = std::move(t.meta);
    r.sourceRows = {row.index};
    r.sourceLines = {row.line};
    out.push_back(std::move(r));
  }
  ctx.facts.warnings.push_back(
      promptCompletion
          ? std::string("rows with images: TRL's SFTTrainer skips dataset preparation and collates with "
                        "DataCollatorForVisionLanguageModeling (prompt-completion: prompt and completion tokenized "
                        "apart") +
                (completionOnly ? ", the prompt and its image tokens -100)" : ", every token but the padding graded)")
          : std::string("rows with images: TRL's SFTTrainer skips dataset preparation and collates with "
                        "DataCollatorForVisionLanguageModeling, which grades every token but the padding: the prompt "
                        "and the image tokens too (TRL leaves vision tokens to the model's loss)"));
  return out;
}

} // namespace maskscope::trl
