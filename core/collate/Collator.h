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
};

class Collator {
public:
  Collator(CollatorSpec spec, const Tokenizer& tokenizer);

  Batch collate(const std::vector<TokenizedConversation>& rows) const;
  // Labels and truncation for one conversation (exposed for lint and tests).
  CollatedExample prepare(const TokenizedConversation& row) const;

  const CollatorSpec& spec() const { return spec_; }
  int64_t padId() const { return padId_; }

private:
  Batch assemble(std::vector<std::vector<const CollatedExample*>> rows, const std::vector<CollatedExample>& all) const;

  CollatorSpec spec_;
  int64_t padId_ = 0;
  std::optional<int64_t> eosId_, bosId_;
  bool padFellBackToEos_ = false;
};

// Position kind of a message role ("user" -> User, ...).
PositionKind kindOfRole(const std::string& role);

} // namespace maskscope
