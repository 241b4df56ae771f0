// Loading of the pipeline's parts; template variables and special tokens from the one decision of
// core/collate/TemplateVariables.h.
#include "core/collate/DatasetPipeline.h"
#include "core/collate/TemplateVariables.h"

namespace maskscope {

DatasetPipeline::DatasetPipeline(const PipelineSpec& spec)
    : encoder_(loadTokenizer(spec.tokenizerSpec), loadChatTemplate(spec.templateSpec, spec.tokenizerSpec)),
      render_(templateVariables(spec.render, &encoder_.chatTemplate(), &encoder_.tokenizer())),
      special_(specialTokenIds(encoder_.tokenizer(), render_)),
      collator_(parseCollatorSpec(spec.collatorSpec), encoder_.tokenizer(), special_) {}

DatasetPipeline::DatasetPipeline(const DatasetPipeline& other, const CollatorSpec& collator)
    : encoder_(other.encoder_), render_(other.render_), special_(other.special_),
      collator_(collator, other.tokenizer(), special_) {}

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
