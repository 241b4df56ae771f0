// Axolotl's multimodal path (processor_type set): no dataset preparation (skip_prepare_dataset),
// then MultiModalChatDataCollator (src/axolotl/utils/collators/mm_chat.py, v0.18.0 = 2f5cb9da):
// the processing strategy normalises the rows, processor.apply_chat_template renders and expands
// the images and tokenizes (transformers 5.14.1 processing_utils.py: add_special_tokens=False only
// when the text starts with the BOS token), pads to the longest row, and process_labels decides
// the labels (MultimodalStrategy.h). sequence_len is not applied: Axolotl neither truncates nor
// drops multimodal rows.
#include "core/data/ContentParts.h"
#include "core/data/RowShapes.h"
#include "core/frameworks/ChatTokenization.h"
#include "core/frameworks/FrameworkBatch.h"
#include "core/frameworks/UnavailableChatTemplate.h"
#include "core/frameworks/axolotl/Axolotl.h"
#include "core/frameworks/axolotl/AxolotlTemplates.h"
#include "core/frameworks/axolotl/ChatTemplateStrategy.h"
#include "core/frameworks/axolotl/MultimodalStrategy.h"
#include "core/media/VisionProcessors.h"
#include "core/template/JinjaChatTemplate.h"
#include "core/util/Error.h"

namespace maskscope::axolotl {

namespace {

SourceLocation at(const FrameworkSpec& s, const char* key) { return {s.source, -1, -1, -1, key}; }

std::vector<std::string> stringsOf(const OrderedJson& v, const FrameworkSpec& s, const char* key) {
  if (v.is_string()) return {v.get<std::string>()};
  if (!v.is_array()) throw Error(std::string(key) + " must be a string or a list of strings", at(s, key));
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string()) throw Error(std::string(key) + " must be a list of strings", at(s, key));
    out.push_back(e.get<std::string>());
  }
  return out;
}

MultimodalSettings settingsOf(const FrameworkSpec& s) {
  MultimodalSettings m;
  m.chatTemplateType = s.optionalString("chat_template").value_or("");
  m.processorType = s.string("processor_type");
  m.trainOnInputs = s.flag("train_on_inputs");
  if (!s.value("roles_to_train").is_null()) m.rolesToTrain = stringsOf(s.value("roles_to_train"), s, "roles_to_train");
  const OrderedJson& eos = s.value("train_on_eos");
  if (!eos.is_null()) {
    m.trainOnEos = eos.is_string() ? eos.get<std::string>() : eos.dump();
    if (m.trainOnEos != "turn" && m.trainOnEos != "all" && m.trainOnEos != "none" && m.trainOnEos != "last")
      throw Error("train_on_eos='" + m.trainOnEos + "' is not one of ('turn', 'all', 'none', 'last').",
                  at(s, "train_on_eos"));
  }
  m.roleBoundaries = s.value("role_boundaries");
  if (!s.value("field_messages").is_null()) m.fieldMessages = stringsOf(s.value("field_messages"), s, "field_messages");
  const OrderedJson& size = s.value("image_size");
  if (size.is_number_integer() && size.get<int64_t>() >= 1 && size.get<int64_t>() <= kMaxImageSide)
    m.imageSize = std::pair{size.get<int64_t>(), size.get<int64_t>()};
  else if (size.is_array() && size.size() == 2 && size[0].is_number_integer() && size[1].is_number_integer() &&
           size[0].get<int64_t>() >= 1 && size[1].get<int64_t>() >= 1 && size[0].get<int64_t>() <= kMaxImageSide &&
           size[1].get<int64_t>() <= kMaxImageSide)
    m.imageSize = std::pair{size[0].get<int64_t>(), size[1].get<int64_t>()};
  else if (!size.is_null())
    throw Error("image_size must be an integer or [width, height] in [1, " + std::to_string(kMaxImageSide) + "]",
                at(s, "image_size"));
  return m;
}

AxolotlConfig specialTokensConfig(const FrameworkSpec& s) {
  AxolotlConfig cfg;
  const OrderedJson& st = s.value("special_tokens");
  if (st.is_object())
    for (auto it = st.begin(); it != st.end(); ++it)
      if (it->is_string()) cfg.specialTokens[it.key()] = it->get<std::string>();
  return cfg;
}

class MultimodalImpl final : public FrameworkImpl {
public:
  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override;
  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override;
};

std::shared_ptr<JinjaChatTemplate> multimodalTemplate(FrameworkContext& ctx, const RenderOptions& render) {
  const FrameworkSpec& s = ctx.spec;
  std::optional<std::string> own;
  std::string ownOrigin;
  if (ctx.chatTemplate && !dynamic_cast<const UnavailableChatTemplate*>(ctx.chatTemplate.get()))
    own = ctx.chatTemplate->source(), ownOrigin = ctx.chatTemplate->name();
  const TemplateChoice choice =
      chooseAxolotlTemplate(s.optionalString("chat_template").value_or("tokenizer_default"),
                            s.optionalString("chat_template_jinja"), own, ownOrigin, s.source);
  if (!own || choice.text != *own) {
    ctx.facts.chatTemplateText = choice.text;
    ctx.facts.chatTemplateOrigin = choice.origin;
  }
  return std::make_shared<JinjaChatTemplate>(choice.origin, choice.text, render.variables);
}

std::vector<PreparedRow> MultimodalImpl::prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const {
  const Tokenizer& tok = ctx.requireTokenizer("Axolotl's MultiModalChatDataCollator");
  const MultimodalSettings settings = settingsOf(ctx.spec);
  const SpecialTokens special = axolotlSpecialTokens(tok, specialTokensConfig(ctx.spec), ctx.spec.source);
  RenderOptions render = ctx.render;
  for (const auto& [k, v] : specialTokensConfig(ctx.spec).specialTokens) render.variables[k] = v;
  const auto tpl = multimodalTemplate(ctx, render);
  std::string family;
  std::vector<PreparedRow> out;
  for (const InputRow& row : rows) {
    std::vector<Message> messages;
    std::vector<std::string> warnings;
    try {
      messages = messagesFromJson(normalizeMultimodalRow(row.value, settings, warnings), "messages");
    } catch (const Error& e) {
      throwRowError(row, settings.fieldMessages.front(), e.message());
    }
    for (const auto& w : warnings) ctx.facts.warnings.push_back("row " + std::to_string(row.index) + ": " + w);
    RenderOptions ro = render;
    ro.computeMessageSpans = false;
    const RenderResult text = tpl->render(messages, ro);
    if (const VisionProcessor* vp = visionProcessorForText(text.text); vp && family.empty()) family = vp->name;
    ChatTemplateCall call; // the processor adds the tokenizer's special tokens unless the text starts with BOS
    call.addSpecialTokens = special.bos.empty() || !text.text.starts_with(special.bos);
    TokenizedText t = applyChatTemplateTokens(tok, *tpl, messages, render, call);
    PreparedRow r;
    r.set("input_ids", t.inputIds);
    r.set("attention_mask", std::vector<int64_t>(t.inputIds.size(), 1));
    r.meta = std::move(t.meta);
    r.sourceRows = {row.index};
    r.sourceLines = {row.line};
    out.push_back(std::move(r));
  }
  ctx.resolved["vision_family"] = family;
  return out;
}

FrameworkBatch MultimodalImpl::collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const {
  const Tokenizer& tok = ctx.requireTokenizer("Axolotl's MultiModalChatDataCollator");
  const MultimodalSettings settings = settingsOf(ctx.spec);
  const std::string family = ctx.resolved.value("vision_family", std::string());
  const MultimodalStrategy strategy = chooseMultimodalStrategy(settings, family, tok, ctx.spec.source);
  const SpecialTokens special = axolotlSpecialTokens(tok, specialTokensConfig(ctx.spec), ctx.spec.source);
  ctx.facts.padTokenId = special.padId ? std::optional<int64_t>(*special.padId) : std::nullopt;
  ctx.facts.eosTokenId = special.eosId ? std::optional<int64_t>(*special.eosId) : std::nullopt;
  std::vector<std::vector<int64_t>> ids, attention;
  for (const auto& r : rows) {
    ids.push_back(r.at("input_ids"));
    attention.push_back(r.at("attention_mask"));
  }
  const bool left = tokenizerPaddingSide(tok) == "left";
  if (!special.padId && paddedWidth(ids, std::nullopt) != int64_t(ids.front().size()))
    throw Error("Asking to pad but the tokenizer does not have a padding token", {ctx.spec.source});
  const auto paddedIds = padRows(ids, special.padId.value_or(0), left); // processor_kwargs={"padding": True}
  std::vector<std::vector<int64_t>> labels;
  for (const auto& r : paddedIds) labels.push_back(multimodalLabels(r, strategy, settings, special.padId));
  std::string masked;
  for (const auto& t : strategy.maskedTokens) masked += (masked.empty() ? "" : ", ") + t;
  ctx.facts.warnings.push_back("Axolotl's MultiModalChatDataCollator with " + strategy.className + ": labels are " +
                               "input_ids with " + masked + " and the padding -100" +
                               (settings.trainOnInputs        ? std::string(" (train_on_inputs: every other token)")
                                : strategy.boundaries.empty() ? std::string()
                                                              : " and every token outside the roles_to_train spans") +
                               "; sequence_len is not applied (Axolotl neither truncates nor drops multimodal rows); "
                               "pixel_values and the processor's other image tensors are not produced");
  if (strategy.boundaries.empty() && !settings.trainOnInputs)
    ctx.facts.warnings.push_back(strategy.className +
                                 " has no built-in role boundaries; cfg.train_on_inputs / cfg.roles_to_train / "
                                 "cfg.train_on_eos will NOT restrict loss to assistant tokens for this multimodal "
                                 "model — only pad and media tokens are masked, every other token (system, user, "
                                 "assistant) contributes to loss.");
  FrameworkBatch out;
  out.addGrid("input_ids", paddedIds, TensorDType::Int64);
  out.addGrid("attention_mask", padRows(attention, 0, left), TensorDType::Int64);
  out.addGrid("labels", labels, TensorDType::Int64);
  return out;
}

} // namespace

std::vector<OptionInfo> multimodalOptions() {
  using K = OptionKind;
  return {
      frameworkOption("processor_type", K::String, "AutoProcessor",
                      "the transformers processor class (its presence selects this collator)"),
      frameworkOption("chat_template", K::OptionalString, nullptr,
                      "the top-level chat_template: qwen2_vl and gemma3 pick their strategies, others the base one"),
      frameworkOption("chat_template_jinja", K::OptionalString, nullptr, "custom jinja chat template, or its path"),
      frameworkOption("train_on_inputs", K::Bool, false, "train on every token but the padding and media tokens"),
      frameworkOption("roles_to_train", K::Json, nullptr, "datasets[0].roles_to_train (None: [\"assistant\"])"),
      frameworkOption("train_on_eos", K::Json, nullptr, "datasets[0].train_on_eos: turn (None), all, none, last"),
      frameworkOption("role_boundaries", K::Json, nullptr,
                      "[{role, start, end, include_start, include_end}] replacing the strategy's markers"),
      frameworkOption("field_messages", K::Json, nullptr, "the datasets' field_messages (None: messages)"),
      frameworkOption("image_size", K::Json, nullptr,
                      "an image column's image resized to [width, height] (an integer: a padded square)"),
      frameworkOption("special_tokens", K::Json, nullptr, "override bos_token, eos_token, pad_token, unk_token"),
  };
}

std::unique_ptr<FrameworkImpl> makeMultimodal() { return std::make_unique<MultimodalImpl>(); }

} // namespace maskscope::axolotl
