// tokenizer.apply_chat_template(conversations, tokenize=True, return_dict=True,
// return_assistant_tokens_mask=True, add_generation_prompt=...) over every messages row: the lists
// it returns (one per conversation, unpadded): input_ids, attention_mask, assistant_masks.
#include "core/data/RowShapes.h"
#include "core/frameworks/ChatTokenization.h"
#include "core/frameworks/transformers/Transformers.h"
#include "core/util/Error.h"

namespace maskscope::transformers {

namespace {

class ApplyChatTemplate final : public FrameworkImpl {
public:
  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override {
    const Tokenizer& tok = ctx.requireTokenizer("apply_chat_template");
    ChatTemplateCall call;
    call.returnAssistantTokensMask = ctx.spec.flag("return_assistant_tokens_mask");
    call.addGenerationPrompt = ctx.spec.flag("add_generation_prompt");
    std::vector<PreparedRow> out;
    for (const InputRow& row : rows) {
      if (!row.value.contains("messages")) throwRowError(row, "messages", "missing (a list of {role, content})");
      std::vector<Message> messages;
      try {
        messages = messagesFromJson(row.value["messages"], "messages");
      } catch (const Error& e) {
        throwRowError(row, "messages", e.message());
      }
      ChatTemplateCall c = call;
      if (row.value.contains("tools")) c.tools = row.value["tools"];
      TokenizedText t = applyChatTemplateTokens(tok, *ctx.chatTemplate, messages, ctx.render, c);
      if (call.returnAssistantTokensMask && !t.templateHasGeneration)
        ctx.facts.warnings.push_back("return_assistant_tokens_mask==True but chat template does not contain "
                                     "`{% generation %}` keyword.");
      PreparedRow r;
      r.set("input_ids", t.inputIds);
      r.set("attention_mask", std::vector<int64_t>(t.inputIds.size(), 1));
      if (call.returnAssistantTokensMask) r.set("assistant_masks", std::move(t.assistantMasks));
      r.meta = std::move(t.meta);
      r.sourceRows = {row.index};
      r.sourceLines = {row.line};
      out.push_back(std::move(r));
    }
    return out;
  }

  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override {
    ctx.facts.padTokenId = ctx.tokenId("pad_token_id", "pad");
    ctx.facts.eosTokenId = ctx.tokenId("eos_token_id", "eos");
    FrameworkBatch out;
    for (const auto& c : rows.front().columns) {
      std::vector<std::vector<int64_t>> lists;
      for (const auto& r : rows) lists.push_back(r.at(c.name));
      out.addLists(c.name, std::move(lists));
    }
    return out;
  }

  // maskscope judges the conversations right-padded, labels = the assistant tokens (what TRL's
  // assistant_only_loss builds from this mask).
  Batch toBatch(const FrameworkBatch&, const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override {
    std::vector<std::vector<int64_t>> ids, attention, labels;
    for (const auto& r : rows) {
      ids.push_back(r.at("input_ids"));
      attention.push_back(r.at("attention_mask"));
      std::vector<int64_t> l = r.at("input_ids");
      if (const auto* m = r.find("assistant_masks"))
        for (size_t i = 0; i < l.size(); ++i)
          if ((*m)[i] == 0) l[i] = kIgnoreIndex;
      labels.push_back(std::move(l));
    }
    FrameworkBatch view;
    view.addGrid("input_ids", padRows(ids, ctx.facts.padTokenId.value_or(0)), TensorDType::Int64);
    view.addGrid("attention_mask", padRows(attention, 0), TensorDType::Int64);
    view.addGrid("labels", padRows(labels, kIgnoreIndex), TensorDType::Int64);
    return FrameworkImpl::toBatch(view, rows, ctx);
  }
};

} // namespace

std::unique_ptr<FrameworkImpl> makeApplyChatTemplate() { return std::make_unique<ApplyChatTemplate>(); }

} // namespace maskscope::transformers
