// Checks that read the template and tokenizer rather than a batch: end token vs EOS, generation
// markers, pad token, prefix preservation, and the per-conversation boundary and injection checks.
#pragma once
#include "core/collate/CollatorSpec.h"
#include "core/collate/ConversationEncoder.h"
#include "core/collate/DatasetPipeline.h"
#include "core/lint/LintReport.h"
#include "core/lint/RoleRecovery.h"
#include "core/lint/RowLocation.h"
#include "core/lint/rules/RuleInput.h"

namespace maskscope {

// Once per lint run: eos-mismatch, pad-token-missing, template-no-generation-markers and
// template-not-prefix-preserving on the probe conversation.
void runTemplateChecks(const ConversationEncoder& encoder, const RenderOptions& render, const RoleMarkers& markers,
                       const CollatorSpec* collator, FindingCollector& out);

// Per conversation, on its encoding: special-token-injection and boundary-merge (a token that
// straddles the start of a reply's content). row = the dataset row.
// conversation (optional): the row as read, for the rules that compare it with its render.
void runConversationChecks(const TokenizedConversation& encoded, long row, FindingCollector& out,
                           const Conversation* conversation = nullptr, RowLocation location = {});

// The render-prefix checks for one conversation (render of the messages before the last reply plus
// the generation prompt must be a text prefix, and its tokens a token prefix, of the full render).
void runPrefixChecks(const ConversationEncoder& encoder, const RenderOptions& render, const Conversation& conversation,
                     const TokenizedConversation& full, FindingCollector& out);

// train-serve-mismatch: per assistant turn, the collated training tokens against the serving
// render (core/collate/TrainServeDiff.h); one finding per turn that differs. full: pipeline.encode(conversation).
void runTrainServeChecks(const DatasetPipeline& pipeline, const Conversation& conversation,
                         const TokenizedConversation& full, FindingCollector& out);

// What the content rules need to know about the template and tokenizer (once per run).
DatasetFacts datasetFactsOf(const ConversationEncoder& encoder);
// The content rules on one dataset row as read; encoded: its encoding, null when the template refused it.
void runContentChecks(const Conversation& conversation, const TokenizedConversation* encoded, const DatasetFacts& facts,
                      FindingCollector& out);

} // namespace maskscope
