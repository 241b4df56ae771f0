// Loading of the pipeline's parts; template variables default to the template's own
// (tokenizer_config.json) and the tokenizer's special tokens.
#include "core/collate/DatasetPipeline.h"

namespace maskscope {

namespace {

RenderOptions withDefaults(RenderOptions ro, const ChatTemplate& t, const Tokenizer& tok) {
  for (const auto& [k, v] : t.defaultVariables()) ro.variables.try_emplace(k, v);
  SpecialTokenIds sp = tok.specialTokens();
  if (!sp.bosText.empty()) ro.variables.try_emplace("bos_token", sp.bosText);
  if (!sp.eosText.empty()) ro.variables.try_emplace("eos_token", sp.eosText);
  if (!sp.padText.empty()) ro.variables.try_emplace("pad_token", sp.padText);
  if (!sp.unkText.empty()) ro.variables.try_emplace("unk_token", sp.unkText);
  return ro;
}

} // namespace

SpecialTokenIds collatorSpecialTokens(const Tokenizer& tok, const RenderOptions& render) {
  SpecialTokenIds sp = tok.specialTokens();
  auto adopt = [&](const char* key, std::optional<int32_t>& id, std::string& text) {
    auto it = render.variables.find(key);
    if (it == render.variables.end() || it->second.empty()) return;
    if (auto found = tok.tokenToId(it->second)) {
      id = *found;
      text = it->second;
    }
  };
  adopt("bos_token", sp.bos, sp.bosText);
  adopt("eos_token", sp.eos, sp.eosText);
  adopt("pad_token", sp.pad, sp.padText);
  adopt("unk_token", sp.unk, sp.unkText);
  return sp;
}

DatasetPipeline::DatasetPipeline(const PipelineSpec& spec)
    : encoder_(loadTokenizer(spec.tokenizerSpec), loadChatTemplate(spec.templateSpec, spec.tokenizerSpec)),
      render_(withDefaults(spec.render, encoder_.chatTemplate(), encoder_.tokenizer())),
      collator_(parseCollatorSpec(spec.collatorSpec), encoder_.tokenizer(),
                collatorSpecialTokens(encoder_.tokenizer(), render_)) {}

DatasetPipeline::DatasetPipeline(const DatasetPipeline& other, const CollatorSpec& collator)
    : encoder_(other.encoder_), render_(other.render_),
      collator_(collator, other.tokenizer(), collatorSpecialTokens(other.tokenizer(), other.render_)) {}

TokenizedConversation DatasetPipeline::encode(const Conversation& c) const {
  EncoderOptions eo;
  eo.render = render_;
  // add_bos is the collator's decision (tokenizer BOS on top of the template's).
  eo.addTokenizerSpecialTokens = false;
  return encoder_.encode(c, eo);
}

Batch DatasetPipeline::collateConversations(const std::vector<Conversation>& rows) const {
  std::vector<TokenizedConversation> encoded;
  encoded.reserve(rows.size());
  for (const auto& c : rows) encoded.push_back(encode(c));
  return collate(encoded);
}

} // namespace maskscope
