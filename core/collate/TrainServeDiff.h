// Training render vs serving render of one conversation (`maskscope render-diff`, the
// train-serve-mismatch lint rule, the app's render-diff view): per assistant turn, the tokens the
// model is trained on against the tokens it sees when it generates that turn at inference.
#pragma once
#include "core/collate/DatasetPipeline.h"
#include "core/data/Conversation.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

// docs/cli.md (render-diff) defines each verdict; the order is their precedence.
enum class TrainServeVerdict { Identical, DiffersInReply, DiffersInContext, DifferentStart };
const char* trainServeVerdictName(TrainServeVerdict v); // "identical", "differs_in_context", ...

// One token of one side that the other side lacks or holds differently (one edit of the alignment).
struct TokenDifference {
  int64_t trainPosition = 0; // index in the training row; for a serve-only token, the training position it precedes
  int64_t servePosition = 0; // index in the serving sequence; for a train-only token, the one it precedes
  std::optional<int32_t> train, serve; // the ids; nullopt on the side that has no token here
  bool inReply = false;                // after both sides' context (see classify in TrainServeDiff.cpp)
};

// One assistant turn k. Training: the collated row (Collator::prepare: the collator's BOS and
// truncation included) from position 0 through the last reply token of message k. Serving: the
// messages before k rendered with add_generation_prompt=True and tokenized as a chat server does
// (no tokenizer BOS on top of the template's), then message k's content tokenized as generated
// text and the end-of-turn token; a message with tool_calls generates its calls too, as the template
// writes them when the message ends the conversation. Plain prompt/completion rows: the prompt text as it is (a
// rendered chat already), then the completion.
struct TurnDiff {
  int message = -1; // index of the assistant message (1, the completion, for plain rows)
  TrainServeVerdict verdict = TrainServeVerdict::Identical;
  std::vector<TokenDifference> differences;
  std::vector<int32_t> train, serve; // the two sequences compared
  std::vector<uint8_t> trainSpecial, serveSpecial;
  bool trainHasReply =
      false; // the training row holds a reply of message k (the template renders it, truncation left it)
  int64_t trainReplyStart = 0; // first reply position of message k in train (train.size() when none)
  int64_t serveReplyStart = 0; // where the generated reply starts in serve (the context's length)
};

// A middle part (after the common prefix and suffix) longer than this on both sides multiplied is
// compared position by position instead of aligned (bounded time and memory per turn).
inline constexpr int64_t kMaxAlignmentCells = int64_t(1) << 20;

// Every assistant turn of c, in message order. Throws Error (the template's message) when a render fails.
std::vector<TurnDiff> diffTrainServe(const DatasetPipeline& pipeline, const Conversation& c);
// The same from c's encoding by pipeline.encode(c), when the caller has it already (lint), for the
// first maxTurns assistant turns (each costs one render of the messages before it).
std::vector<TurnDiff> diffTrainServe(const DatasetPipeline& pipeline, const Conversation& c,
                                     const TokenizedConversation& encoded, size_t maxTurns = SIZE_MAX);

// Aligns train and serve (common prefix and suffix, then a longest-common-subsequence alignment of
// the middle) and fills differences and verdict of d from its sequences.
void compareTurn(TurnDiff& d);

} // namespace maskscope
