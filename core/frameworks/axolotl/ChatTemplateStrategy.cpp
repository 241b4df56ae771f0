// Axolotl's chat_template strategy (see ChatTemplateStrategy.h), statement by statement from
// src/axolotl/prompt_strategies/chat_template.py at v0.18.0. Python details that decide labels are
// kept: find_first_eos_token(start_idx=-1) looks at input_ids[-1] first (Python's negative index),
// `should_train` is Python truthiness, a token is trained by training_detail only when a trained
// span contains it wholly.
#include "core/frameworks/axolotl/ChatTemplateStrategy.h"
#include "core/util/Error.h"

#include <algorithm>
#include <cctype>

namespace maskscope::axolotl {

namespace {

constexpr int64_t kIgnore = -100;

bool truthy(const OrderedJson* v) { return v && pythonTruthy(*v); }

const OrderedJson* get(const OrderedJson& o, const std::string& key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

std::vector<int32_t> encodeIds(const Tokenizer& t, const std::string& text) {
  EncodeOptions eo;
  eo.addSpecialTokens = false;
  eo.tokenStrings = false;
  return t.encode(text, eo).ids;
}

std::string lowered(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

SpecialTokens axolotlSpecialTokens(const Tokenizer& tokenizer, const AxolotlConfig& config, const std::string& source) {
  const SpecialTokenIds ids = tokenizer.specialTokens();
  SpecialTokens s{ids.bosText, ids.eosText, ids.padText, ids.unkText, ids.bos, ids.eos, ids.pad, ids.unk};
  for (const auto& [key, text] : config.specialTokens) {
    auto id = tokenizer.tokenToId(text);
    if (!id)
      throw Error("special_tokens." + key + " '" + text +
                      "' is not in the tokenizer's vocabulary: Axolotl would add it " +
                      "as a new token, which maskscope does not reproduce",
                  SourceLocation{source, -1, -1, -1, "special_tokens"});
    if (key == "bos_token")
      s.bos = text, s.bosId = *id;
    else if (key == "eos_token")
      s.eos = text, s.eosId = *id;
    else if (key == "pad_token")
      s.pad = text, s.padId = *id;
    else if (key == "unk_token")
      s.unk = text, s.unkId = *id;
  }
  // load_tokenizer's generic fallback: no pad token -> the EOS token
  if (!s.padId && s.eosId) s.pad = s.eos, s.padId = s.eosId;
  return s;
}

ChatTemplateStrategy::ChatTemplateStrategy(const AxolotlConfig& config, std::shared_ptr<const Tokenizer> tokenizer,
                                           const std::string& templateText, const std::string& templateOrigin,
                                           std::map<std::string, std::string> variables, const std::string& source)
    : config_(config), tokenizer_(std::move(tokenizer)), templateText_(templateText), variables_(std::move(variables)) {
  thread_ = threadOptions(config_);
  special_ = axolotlSpecialTokens(*tokenizer_, config_, source);
  // transformers passes the tokenizer's special tokens to the template (special_tokens_map)
  std::map<std::string, std::string> defaults;
  if (!special_.bos.empty()) defaults["bos_token"] = special_.bos;
  if (!special_.eos.empty()) defaults["eos_token"] = special_.eos;
  if (!special_.pad.empty()) defaults["pad_token"] = special_.pad;
  if (!special_.unk.empty()) defaults["unk_token"] = special_.unk;
  template_ = std::make_shared<JinjaChatTemplate>(templateOrigin, templateText_, defaults);
  for (const auto& r : config_.rolesToTrain) rolesToTrain_.push_back(mapRole(thread_, r));
  trainOnEot_ = config_.trainOnEot != TrainOn::Unset ? config_.trainOnEot : config_.trainOnEos;
  mistralName_ = lowered(tokenizer_->source()).find("mistral") != std::string::npos;
  setUpEot(source);
}

void ChatTemplateStrategy::setUpEot(const std::string& source) {
  SourceLocation where{source, -1, -1, -1, "eot_tokens"};
  if (config_.eotTokens)
    eotTokens_ = *config_.eotTokens;
  else if (!special_.eos.empty())
    eotTokens_ = {special_.eos};
  // _validate_eot_and_eos_tokens
  if (eotTokens_.size() == 1 && eotTokens_[0] == special_.eos) {
    if (templateText_.find(special_.eos) == std::string::npos && templateText_.find("eos_token") == std::string::npos)
      setupWarnings_.push_back(
          "EOS token '" + special_.eos +
          "' not found in chat_template; the turn terminator won't be trained. Set `eot_tokens` to "
          "your template's turn-ending token.");
  } else {
    std::vector<std::string> valid;
    for (const auto& token : eotTokens_) {
      if (templateText_.find(token) == std::string::npos) {
        setupWarnings_.push_back("EOT token '" + token + "' not found in chat_template.");
        continue;
      }
      valid.push_back(token);
    }
    eotTokens_ = valid;
    for (const auto& token : eotTokens_) {
      const auto ids = encodeIds(*tokenizer_, token);
      if (ids.empty())
        throw Error("EOT token encoding failed. Please check if the token is valid and can be encoded.", where);
      if (ids.size() > 1)
        throw Error("EOT token '" + token + "' is encoded as multiple tokens (" + std::to_string(ids.size()) +
                        "): Axolotl refuses it (add it under `tokens:` or override an unused added token)",
                    where);
    }
    const bool eosIsEot =
        !special_.eos.empty() && std::find(eotTokens_.begin(), eotTokens_.end(), special_.eos) != eotTokens_.end();
    if (eosIsEot && config_.trainOnEos != trainOnEot_)
      throw Error(std::string("Conflict between train_on_eos and train_on_eot. eos_token is in eot_tokens and "
                              "train_on_eos != train_on_eot (train_on_eos: ") +
                      trainOnName(config_.trainOnEos) + ", train_on_eot: " + trainOnName(trainOnEot_) + ")",
                  where);
  }
  for (const auto& token : eotTokens_) {
    const auto ids = encodeIds(*tokenizer_, token);
    if (ids.size() == 1) eotIds_.insert(ids[0]);
  }
}

std::vector<int32_t> ChatTemplateStrategy::buildPrompt(const std::vector<OrderedJson>& turns, bool addGenerationPrompt,
                                                       const OrderedJson& tools,
                                                       std::optional<long> realLastIndex) const {
  RenderOptions ro;
  ro.addGenerationPrompt = addGenerationPrompt;
  ro.computeMessageSpans = false;
  ro.variables = variables_;
  OrderedJson extra = config_.chatTemplateKwargs;
  // {"add_generation_prompt": ..., **chat_template_kwargs}: a kwarg of that name wins
  if (const OrderedJson* agp = get(extra, "add_generation_prompt")) ro.addGenerationPrompt = truthy(agp);
  if (realLastIndex && *realLastIndex != 0) extra["real_last_index"] = *realLastIndex; // `if real_last_index:`
  OrderedJson messages = OrderedJson::array();
  for (const auto& t : turns) messages.push_back(t);
  // `if tools: chat_template_kwargs["tools"] = tools`: an empty list reaches the template as None
  const OrderedJson given = pythonTruthy(tools) ? tools : OrderedJson();
  const RenderResult r = template_->renderJson(messages, ro, given, extra);
  return encodeIds(*tokenizer_, r.text);
}

TokenizedRow ChatTemplateStrategy::tokenize(const OrderedJson& rowIn) const {
  const OrderedJson row = removeNoneValues(rowIn);
  if (!row.is_object()) throw Error("a row must be a JSON object");
  const std::vector<OrderedJson> turns = conversationThread(row, thread_);
  const OrderedJson tools = config_.legacyPath() ? OrderedJson() : rowTools(row);
  TokenizedRow out = config_.legacyPath() ? tokenizeLegacy(turns) : tokenizeTurns(turns, tools);
  out.turns = turns;
  out.tools = tools;
  for (const auto& t : turns)
    if (const OrderedJson* r = get(t, "role"); r && *r == "assistant") ++out.assistantTurns;
  return out;
}

TokenizedRow ChatTemplateStrategy::tokenizeLegacy(const std::vector<OrderedJson>& turns) const {
  TokenizedRow out;
  out.legacy = true;
  out.columnOrder = {"input_ids", "attention_mask", "labels"};
  const std::vector<OrderedJson> head(turns.begin(), turns.end() - 1);
  const auto promptIds = buildPrompt(head, true, nullptr, std::nullopt);
  const auto full = buildPrompt(turns, false, nullptr, std::nullopt);
  out.inputIds.assign(promptIds.begin(), promptIds.end());
  for (size_t i = promptIds.size(); i < full.size(); ++i) out.inputIds.push_back(full[i]);
  out.attentionMask.assign(out.inputIds.size(), 1);
  out.labels = out.inputIds;
  if (!config_.trainOnInputs)
    std::fill(out.labels.begin(), out.labels.begin() + long(std::min(promptIds.size(), out.labels.size())), kIgnore);
  return out;
}

} // namespace maskscope::axolotl
