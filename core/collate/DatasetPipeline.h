// The whole path from a dataset to a batch, loaded once and reused: tokenizer, chat template,
// encoder and collator. The CLI, the linter and the app all go through it.
#pragma once
#include "core/collate/Collator.h"
#include "core/collate/ConversationEncoder.h"
#include "core/data/DatasetReader.h"

#include <memory>
#include <string>

namespace maskscope {

struct PipelineSpec {
  std::string tokenizerSpec = "builtin:demo";
  std::string templateSpec; // empty: the tokenizer's own
  std::string collatorSpec = "default";
  RenderOptions render; // variables (--var), --now, generation prompt
};

class DatasetPipeline {
public:
  explicit DatasetPipeline(const PipelineSpec& spec);
  // Shares tokenizer and template with other, but uses another collator.
  DatasetPipeline(const DatasetPipeline& other, const CollatorSpec& collator);

  TokenizedConversation encode(const Conversation& conversation) const;
  Batch collate(const std::vector<TokenizedConversation>& rows) const { return collator_.collate(rows); }
  Batch collateConversations(const std::vector<Conversation>& rows) const;

  const Tokenizer& tokenizer() const { return encoder_.tokenizer(); }
  const ChatTemplate& chatTemplate() const { return encoder_.chatTemplate(); }
  const ConversationEncoder& encoder() const { return encoder_; }
  const Collator& collator() const { return collator_; }
  const RenderOptions& renderOptions() const { return render_; }
  // The special tokens the collator uses (core/collate/TemplateVariables.h: the template variables'
  // bos/eos/pad/unk where the vocabulary has them, else the tokenizer's).
  const SpecialTokenIds& specialTokens() const { return special_; }

private:
  ConversationEncoder encoder_; // members in this order: the collator's tokens come from render_
  RenderOptions render_;
  SpecialTokenIds special_;
  Collator collator_;
};

} // namespace maskscope
