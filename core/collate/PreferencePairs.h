// The two sequences a preference trainer builds from one row, as TRL's DPOTrainer does: the prompt
// rendered with the chat template and the generation prompt, the completion = the rest of the
// rendered prompt + side text, each tokenized on its own and joined, then the EOS TRL appends.
// Every completion position (incl. that EOS) is a reply position: TRL's loss mask is 0 on the
// prompt and 1 on the completion, so a collator grading replies grades exactly the completion.
#pragma once
#include "core/collate/DatasetPipeline.h"
#include "core/data/PreferenceRow.h"

#include <string>
#include <vector>

namespace maskscope {

struct PreferenceSide {
  TokenizedConversation encoded; // prompt tokens, completion tokens, TRL's EOS; completionStart = prompt tokens
  std::string promptRendered;    // the prompt with the generation prompt, rendered alone
  std::string promptText;        // TRL's prompt: the common prefix of promptRendered and the full render
  // The ids of the prompt's bytes when prompt + completion is tokenized as one text (what a
  // trainer that tokenizes the joined text, or an inference server given the full text, sees).
  std::vector<int32_t> jointPromptIds;
};

struct EncodedPreference {
  long rowIndex = -1;
  long sourceLine = -1;
  long sourceItem = -1;
  PreferenceSide chosen, rejected;
};

// Throws Error when the template refuses the row.
EncodedPreference encodePreference(const DatasetPipeline& pipeline, const PreferenceRow& row);

struct PreferenceBatches {
  Batch chosen, rejected; // [B, T] each, row i of both = pair i; collated by the pipeline's collator
};
PreferenceBatches collatePreference(const DatasetPipeline& pipeline, const std::vector<EncodedPreference>& pairs);

} // namespace maskscope
