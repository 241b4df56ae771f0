// SFTTrainer._prepare_dataset, TRL 1.10 (main 1.10.0.dev0) and 1.6.0: ShareGPT rows converted to
// ChatML, EOS appended to text/completion rows, rows tokenized (apply_chat_template with
// return_assistant_tokens_mask for messages; tokenizer(text) for text), then in 1.10 labels built
// from the masks, rows truncated and the ones left with nothing graded dropped; packing in both.
#include "core/collate/DatasetPipeline.h"
#include "core/data/RowShapes.h"
#include "core/frameworks/ChatTokenization.h"
#include "core/frameworks/FrameworkBatch.h"
#include "core/frameworks/trl/Trl.h"
#include "core/frameworks/trl/TrlPacking.h"
#include "core/util/Error.h"
#include "core/util/JsonParse.h"

#include <algorithm>

namespace maskscope::trl {

namespace {

// The columns TRL's collators read from a processed row (DataCollatorForLanguageModeling, 1.x).
const PreTokenizedColumns kTokenizedColumns{{"completion_mask", "assistant_masks", "attention_mask"}, true, true};

struct SftSettings {
  bool v110 = true;
  std::optional<int64_t> maxLength;
  bool keepEnd = false;
  bool packing = false;
  std::string strategy = "bfd";
  bool completionOnlyLoss = false;
  bool assistantOnlyLoss = false;
  std::string textField = "text";
  std::string eosText;
  bool skipPrepare = false;
};

SftSettings settingsOf(const FrameworkContext& ctx, const OrderedJson& firstRow) {
  const FrameworkSpec& s = ctx.spec;
  SftSettings st;
  st.v110 = s.behaves("labels_built_in_preparation");
  st.maxLength = s.optionalInteger("max_length");
  st.keepEnd = s.string("truncation_mode") == "keep_end";
  st.packing = s.flag("packing");
  st.strategy = s.string("packing_strategy");
  const OrderedJson& col = s.value("completion_only_loss");
  if (!col.is_null() && !col.is_boolean())
    throw Error("option \"completion_only_loss\" must be true, false or null",
                {s.source, -1, -1, -1, "completion_only_loss"});
  // SFTTrainer: None means "prompt" in dataset_sample and "completion" in dataset_sample (the raw row).
  st.completionOnlyLoss =
      col.is_boolean() ? col.get<bool>() : firstRow.contains("prompt") && firstRow.contains("completion");
  st.assistantOnlyLoss = s.flag("assistant_only_loss");
  st.textField = s.string("dataset_text_field");
  const OrderedJson& kw = s.value("dataset_kwargs");
  st.skipPrepare = kw.is_object() && kw.contains("skip_prepare_dataset") && kw["skip_prepare_dataset"] == true;
  if (s.flag("shuffle_dataset"))
    throw Error("shuffle_dataset=true is refused: maskscope does not reproduce datasets' shuffle order; collate the "
                "rows in the order you want to see",
                {s.source, -1, -1, -1, "shuffle_dataset"});
  if (st.packing && !st.maxLength)
    throw Error("When packing is enabled, `max_length` can't be `None`.", {s.source, -1, -1, -1, "max_length"});
  if (auto eos = s.optionalString("eos_token"))
    st.eosText = *eos;
  else if (auto it = ctx.render.variables.find("eos_token"); it != ctx.render.variables.end())
    st.eosText = it->second;
  return st;
}

bool isConversationalList(const OrderedJson& v) {
  return v.is_array() && !v.empty() && v[0].is_object() && v[0].contains("role");
}

// trl.data_utils.is_conversational: the first of prompt/chosen/rejected/completion/messages present
// holds a list of {"role", ...} messages.
bool isConversational(const OrderedJson& row) {
  for (const char* key : {"prompt", "chosen", "rejected", "completion", "messages"})
    if (row.contains(key)) return isConversationalList(row[key]);
  return false;
}

// maybe_convert_to_chatml: {"conversations": [{"from", "value"}]} -> {"messages": [{"role", "content"}]}.
OrderedJson convertFromValue(const OrderedJson& row) {
  if (!row.contains("conversations") || !row["conversations"].is_array() || row["conversations"].empty()) return row;
  const OrderedJson& first = row["conversations"][0];
  if (!first.is_object() || !first.contains("from") || !first.contains("value")) return row;
  OrderedJson out = OrderedJson::object();
  for (auto it = row.begin(); it != row.end(); ++it) {
    if (it.key() != "conversations") {
      out[it.key()] = it.value();
      continue;
    }
    OrderedJson msgs = OrderedJson::array();
    for (const auto& m : it.value()) {
      OrderedJson n = OrderedJson::object();
      for (auto f = m.begin(); f != m.end(); ++f)
        n[f.key() == "from" ? "role" : f.key() == "value" ? "content" : f.key()] = f.value();
      msgs.push_back(std::move(n));
    }
    out["messages"] = std::move(msgs);
  }
  return out;
}

ChatTemplateCall callFor(const InputRow& row, const OrderedJson& value) {
  ChatTemplateCall call;
  if (value.contains("tools")) {
    call.tools = value["tools"];
    if (call.tools.is_string())
      call.tools = parseOrderedJsonOrThrow(call.tools.get<std::string>(), {row.file, row.line});
  }
  if (value.contains("chat_template_kwargs") && value["chat_template_kwargs"].is_object())
    call.extra = value["chat_template_kwargs"];
  return call;
}

std::string stringOf(const InputRow& row, const OrderedJson& value, const std::string& key) {
  if (!value.contains(key) || !value[key].is_string()) throwRowError(row, key, "expected a string");
  return value[key].get<std::string>();
}

// A conversational row whose image or video parts the processor expanded on the text path: tokenize_fn
// keeps only input_ids and assistant_masks of what the processor returns (sft_trainer.py at f2cd577 and
// v1.6.0), so pixel_values / pixel_values_videos never reach the model, which then embeds the
// placeholder tokens as text.
// Counted on the prepared row (after 1.10's truncation), as the batch shows it.
void notePixelsDropped(const PreparedRow& r, FrameworkContext& ctx) {
  const auto n =
      std::count_if(r.meta.begin(), r.meta.end(), [](const PositionMeta& m) { return m.kind == PositionKind::Image; });
  if (n == 0 || r.sourceRows.empty()) return;
  ctx.facts.pixelsDropped.push_back({r.sourceRows.front(), r.sourceLines.front(),
                                     std::to_string(n) + " image or video positions, no image or images column"});
}

// tokenize_fn of SFTTrainer for one text row.
PreparedRow tokenizeRow(const InputRow& row, const FrameworkContext& ctx, const SftSettings& st) {
  const Tokenizer& tok = ctx.requireTokenizer("a text row");
  OrderedJson value = convertFromValue(row.value);
  const bool conversational = isConversational(value);
  PreparedRow out;
  ChatTemplateCall call = callFor(row, value);
  if (value.contains("prompt")) {
    std::vector<int64_t> promptIds, allIds;
    if (conversational) {
      std::vector<Message> prompt = messagesOf(row, value["prompt"], "prompt");
      std::vector<Message> all = prompt;
      for (auto& m : messagesOf(row, value["completion"], "completion")) all.push_back(std::move(m));
      ChatTemplateCall p = call;
      p.addGenerationPrompt = true;
      promptIds = applyChatTemplateTokens(tok, *ctx.chatTemplate, prompt, ctx.render, p).inputIds;
      call.returnAssistantTokensMask = st.assistantOnlyLoss;
      TokenizedText t = applyChatTemplateTokens(tok, *ctx.chatTemplate, all, ctx.render, call);
      if (st.assistantOnlyLoss) out.set("assistant_masks", t.assistantMasks);
      allIds = std::move(t.inputIds);
      out.meta = std::move(t.meta);
    } else {
      std::string completion = stringOf(row, value, "completion");
      if (!st.eosText.empty() && !completion.ends_with(st.eosText)) completion += st.eosText; // add_eos
      const std::string prompt = stringOf(row, value, "prompt");
      promptIds = tokenizeText(tok, prompt);
      allIds = tokenizeText(tok, prompt + completion);
    }
    if (allIds.size() < promptIds.size() || !std::equal(promptIds.begin(), promptIds.end(), allIds.begin()))
      ctx.facts.warnings.push_back("row " + std::to_string(row.index) +
                                   ": Mismatch between tokenized prompt and the start of tokenized prompt+completion.");
    std::vector<int64_t> completionMask(allIds.size(), 1);
    for (size_t i = 0; i < std::min(promptIds.size(), allIds.size()); ++i) completionMask[i] = 0;
    out.set("input_ids", std::move(allIds));
    out.set("completion_mask", std::move(completionMask));
  } else if (conversational) {
    call.returnAssistantTokensMask = st.assistantOnlyLoss;
    TokenizedText t = applyChatTemplateTokens(tok, *ctx.chatTemplate, messagesOf(row, value["messages"], "messages"),
                                              ctx.render, call);
    out.set("input_ids", std::move(t.inputIds));
    if (st.assistantOnlyLoss) out.set("assistant_masks", std::move(t.assistantMasks));
    out.meta = std::move(t.meta);
  } else {
    std::string text = stringOf(row, value, st.textField);
    if (value.contains("text") && !st.eosText.empty() && !text.ends_with(st.eosText) && st.textField == "text")
      text += st.eosText; // add_eos checks the "text" column by that name
    out.set("input_ids", tokenizeText(tok, text));
  }
  if (const auto* am = out.find("assistant_masks"); am && std::find(am->begin(), am->end(), 1) == am->end()) {
    ctx.facts.assistantOnlyWithoutGeneration = true;
    const std::string msg =
        "You're using `assistant_only_loss=True`, but at least one example has no assistant tokens. This usually "
        "means the tokenizer's chat template doesn't generate assistant masks — it may be missing the "
        "`{% generation %}` keyword. (TRL raises RuntimeError; first at row " +
        std::to_string(row.index) + ")";
    if (!ctx.lenient) throw Error(msg, {row.file, row.line});
    if (ctx.facts.warnings.empty() || ctx.facts.warnings.back() != msg) ctx.facts.warnings.push_back(msg);
  }
  return out;
}

// build_labels (1.10): labels = input id where every applicable mask is 1, else -100.
void buildLabels(PreparedRow& r, const SftSettings& st) {
  if (r.has("labels")) return;
  std::vector<int64_t> labels = r.at("input_ids");
  for (const char* mask : {"completion_mask", "assistant_masks"}) {
    if (std::string(mask) == "completion_mask" && !st.completionOnlyLoss) continue;
    if (const auto* m = r.find(mask))
      for (size_t i = 0; i < labels.size(); ++i)
        if ((*m)[i] == 0) labels[i] = kIgnoreIndex;
  }
  r.set("labels", std::move(labels));
  r.erase("assistant_masks");
  if (st.completionOnlyLoss) r.erase("completion_mask");
}

// truncate + the filter of rows left fully masked (1.10).
std::vector<PreparedRow> truncateAndDrop(std::vector<PreparedRow> rows, const SftSettings& st, FrameworkContext& ctx) {
  std::vector<PreparedRow> kept;
  for (auto& r : rows) {
    for (auto& c : r.columns)
      if (c.name == "input_ids" || c.name == "labels") truncateSequence(c.values, st.maxLength, st.keepEnd);
    truncateSequence(r.meta, st.maxLength, st.keepEnd);
    const auto& labels = r.at("labels");
    // TRL stopped earlier (RuntimeError at tokenization) when assistant_only_loss met a template
    // without {% generation %}; lint (lenient) keeps those rows to show what the masks were.
    // graded-count: ok (TRL's own filter, `any(l != -100)` over the row, position 0 included)
    if (ctx.facts.assistantOnlyWithoutGeneration ||
        std::any_of(labels.begin(), labels.end(), [](int64_t l) { return l != kIgnoreIndex; })) {
      kept.push_back(std::move(r));
      continue;
    }
    ctx.facts.dropped.push_back({r.sourceRows.front(), r.sourceLines.front(),
                                 "nothing left graded after truncation to max_length=" + std::to_string(*st.maxLength) +
                                     " (" + (st.keepEnd ? "keep_end" : "keep_start") + ")"});
  }
  return kept;
}

} // namespace

std::vector<Message> messagesOf(const InputRow& row, const OrderedJson& list, const char* key) {
  try {
    return messagesFromJson(list, key);
  } catch (const Error& e) {
    throwRowError(row, key, e.message());
  }
}

int64_t sftPadTokenId(const FrameworkContext& ctx) {
  if (auto id = ctx.spec.optionalInteger("pad_token_id")) return *id;
  // SFTTrainer: pad_token = args.pad_token or tokenizer.pad_token or tokenizer.eos_token.
  if (auto text = ctx.spec.optionalString("pad_token")) {
    const Tokenizer& tok = ctx.requireTokenizer("the pad_token option");
    if (auto id = tok.tokenToId(*text)) return *id;
    throw Error("The specified `pad_token` ('" + *text + "') is not found in the vocabulary",
                {ctx.spec.source, -1, -1, -1, "pad_token"});
  }
  return ctx.padTokenIdOrEos();
}

std::vector<PreparedRow> prepareSft(const std::vector<InputRow>& rows, FrameworkContext& ctx) {
  // SFTTrainer: args.eos_token replaces tokenizer.eos_token (so the chat template renders it too);
  // it must be in the vocabulary.
  if (auto eos = ctx.spec.optionalString("eos_token"); eos && ctx.tokenizer) {
    if (!ctx.tokenizer->tokenToId(*eos))
      throw Error("The specified `eos_token` ('" + *eos + "') is not found in the vocabulary of the given tokenizer",
                  {ctx.spec.source, -1, -1, -1, "eos_token"});
    ctx.render.variables["eos_token"] = *eos;
  }
  if (isVisionDataset(rows.front().value)) return prepareVision(rows, ctx);
  const SftSettings st = settingsOf(ctx, rows.front().value);
  ctx.resolved["completion_only_loss"] = st.completionOnlyLoss;
  const bool processed = rows.front().value.contains("input_ids");
  std::vector<PreparedRow> out;
  out.reserve(rows.size());
  for (const InputRow& row : rows) {
    if (processed != row.value.contains("input_ids"))
      throwRowError(row, "input_ids",
                    processed ? "missing (the first row is pre-tokenized)"
                              : "present, but the first row is text (one dataset, one shape)");
    if (!processed && st.skipPrepare) throwRowError(row, "input_ids", "skip_prepare_dataset needs pre-tokenized rows");
    PreparedRow r =
        processed ? readPreTokenizedRow(row, ctx.vocabSize(), kTokenizedColumns) : tokenizeRow(row, ctx, st);
    r.sourceRows = {row.index};
    r.sourceLines = {row.line};
    out.push_back(std::move(r));
  }
  if (st.skipPrepare) return out;
  if (st.v110) {
    for (auto& r : out) buildLabels(r, st);
    if (st.maxLength && !st.packing) out = truncateAndDrop(std::move(out), st, ctx);
  }
  for (const PreparedRow& r : out) notePixelsDropped(r, ctx);
  if (st.packing) {
    std::vector<std::string> cols = {"input_ids"};
    if (st.v110)
      cols.push_back("labels");
    else
      for (const char* c : {"completion_mask", "assistant_masks"})
        if (!out.empty() && out.front().has(c)) cols.push_back(c);
    out = packRows(out, cols, *st.maxLength, st.strategy);
  }
  return out;
}

} // namespace maskscope::trl
