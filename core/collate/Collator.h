// Builds the batch a training collator would build from tokenized conversations: padding,
// truncation, labels (HF convention: label = the input id at that position, -100 = ignored,
// the model shifts), attention mask, position ids, and packing.
#pragma once
#include "core/collate/CollatorSpec.h"
#include "core/data/Batch.h"
#include "core/data/TokenizedConversation.h"
#include "core/tokenizer/Tokenizer.h"

#include <vector>

namespace maskscope {

// One example after labels and truncation, before padding and packing.
struct CollatedExample {
  std::vector<int64_t> ids;
  std::vector<uint8_t> graded;
  std::vector<PositionMeta> meta;
  long sourceRow = -1;
  bool truncated = false;
  int repliesCut = 0; // replies that lost their end (closing token) to truncation, incl. ones cut away whole
};

class Collator {
public:
  // Special tokens as resolved by core/collate/TemplateVariables.h's specialTokenIds (the pipeline
  // passes the template variables' tokens, so the collator's EOS is the one the template closes
  // turns with).
  Collator(CollatorSpec spec, const Tokenizer& tokenizer, const SpecialTokenIds& special);

  Batch collate(const std::vector<TokenizedConversation>& rows) const;
  // Labels and truncation for one conversation (exposed for lint and tests).
  CollatedExample prepare(const TokenizedConversation& row) const;
  // Padding and packing of prepared examples into a batch (the cheap half of collate()).
  Batch collatePrepared(const std::vector<CollatedExample>& examples) const;

  const CollatorSpec& spec() const { return spec_; }
  int64_t padId() const { return padId_; }
  std::optional<int64_t> eosId() const { return eosId_; }

private:
  Batch assemble(const std::vector<std::vector<const CollatedExample*>>& rows) const;
  bool copiesIds() const; // labels all / pad_masked / mask_pad_id: every real id is its own label
  // prepare's last two steps: the post-processor's BOS/EOS around the row, then max_length.
  void addPostProcessorTokens(CollatedExample& ex) const;
  void truncate(CollatedExample& ex) const;

  CollatorSpec spec_;
  int64_t padId_ = 0;
  std::optional<int64_t> eosId_, bosId_;
  // What the tokenizer's post-processor puts around a text (add_special_tokens=True): add_bos
  // inserts these, e.g. [BOS] before and nothing after for Llama-style tokenizers.
  std::vector<int64_t> addedPrefix_, addedSuffix_;
};

// Position kind of a message role ("user" -> User, ...).
PositionKind kindOfRole(const std::string& role);

// What each position of an encoded conversation is, as every batch records it: kind (Template
// outside messages, Think in a reasoning span, else the message role's), message, turn, special,
// scaffolding, reply (TokenInfo::inGeneration) and the reply's closing token (the last special
// token of each run of reply positions). The collator and the role recovery of dumps
// (core/lint/RoleRecovery.h) both call it, so a dump's roles mean what a collated batch's do.
std::vector<PositionMeta> positionMetaOf(const TokenizedConversation& row);

} // namespace maskscope
