// SFTTrainer with a vision dataset, TRL 1.10 (commit f2cd577, trl/trainer/sft_trainer.py): the
// refusals of a vision-language model (packing, padding_free, assistant_only_loss, keep_end), no
// dataset preparation, and DataCollatorForVisionLanguageModeling's language-modeling path:
// apply_chat_template, the processor's tokenization (add_special_tokens=False, truncation to
// max_length keeping the start), labels = input_ids with only the padding -100. TRL leaves vision
// tokens graded ("their handling in loss computation has to be done by the model").
#include "core/data/ContentParts.h"
#include "core/data/RowShapes.h"
#include "core/frameworks/ChatTokenization.h"
#include "core/frameworks/FrameworkBatch.h"
#include "core/frameworks/FrameworkRows.h"
#include "core/frameworks/trl/Trl.h"
#include "core/util/Error.h"

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

// The ValueErrors SFTTrainer.__init__ raises for a vision-language model, in its order.
void refuseVisionSettings(const FrameworkSpec& s) {
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
  if (col.is_boolean() && col.get<bool>())
    throw Error("The `completion_only_loss` argument is not supported for language modeling datasets.",
                at(s, "completion_only_loss"));
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
  refuseVisionSettings(s);
  const Tokenizer& tok = ctx.requireTokenizer("rows with images");
  const std::optional<int64_t> maxLength = s.optionalInteger("max_length");
  std::vector<PreparedRow> out;
  out.reserve(rows.size());
  for (const InputRow& row : rows) {
    if (!row.value.contains("messages"))
      throwRowError(row, row.value.contains("prompt") ? "prompt" : "messages",
                    "DataCollatorForVisionLanguageModeling's prompt-completion and text paths are not reproduced: "
                    "give each row as \"messages\" with image parts");
    std::vector<Message> messages;
    try {
      messages = messagesFromJson(row.value["messages"], "messages");
    } catch (const Error& e) {
      throwRowError(row, "messages", e.message());
    }
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
      "rows with images: TRL's SFTTrainer skips dataset preparation and collates with "
      "DataCollatorForVisionLanguageModeling, which grades every token but the padding: the prompt and the image "
      "tokens too (TRL leaves vision tokens to the model's loss)");
  return out;
}

} // namespace maskscope::trl
