// Recovering roles in a batch dump (ids only). What the template writes around each role's messages
// (header, footer), before a conversation (a BOS) and between turns is learnt by rendering probe
// conversations through the template and tokenizer; those are matched in the ids to find the
// messages, and which positions are replies is then decided by collate's own rules
// (markThinkSpans, markRecoveredReplies, positionMetaOf), so a dump means what a collated batch does.
#pragma once
#include "core/collate/ConversationEncoder.h"
#include "core/data/Batch.h"
#include "core/lint/ReplyJoins.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

struct RoleMarker {
  std::string role;
  PositionKind kind = PositionKind::Unknown;
  std::vector<int32_t> header; // tokens from the message's start to its content (common to every turn)
  std::vector<int32_t> footer; // tokens after the content through its end-of-turn token; empty: none
};

struct RoleMarkers {
  std::vector<RoleMarker> roles; // longest header first
  // What the template writes before a conversation's first message and nowhere else (Llama 3's
  // <|begin_of_text|>, Gemma's <bos>); empty when nothing (ChatML) or when it recurs between turns.
  std::vector<int32_t> conversationPrefix;
  std::vector<std::pair<int64_t, int64_t>> turnJoins; // adjacent id pairs the template writes between turns
  // What the template writes between a turn's closing token (the end of a non-empty footer) and the
  // next user header (Qwen3: "\n", id 198; Llama 2 and 3: nothing): any other join of a reply and a
  // user turn is one the template never writes, so a conversation starts there.
  std::vector<std::vector<int32_t>> gapsBeforeUser;
  bool thinkOnlyInFinalReply = false;  // the template drops <think>...</think> from earlier replies (Qwen3)
  std::string eosText;                 // the eos_token variable: the end-of-turn test, as in collate
  std::optional<int32_t> closingToken; // the token that closes an assistant reply (for eos-mismatch)
  TokenizedConversation probe;         // the probe conversation as encoded (for template checks)
  std::vector<Message> probeMessages;
  bool usable() const { return !roles.empty(); }
};

// Renders probes; throws only a template's sandbox limit (an unusable result when the template
// rejects every probe).
RoleMarkers learnRoleMarkers(const ConversationEncoder& encoder, const RenderOptions& render);

// Fills batch.meta for every row (kinds, messages, turns, replies and closing tokens, truncated
// replies), batch.conversationStarts (the template's start-of-conversation signs in mid-row: the
// conversation prefix, a system turn after other turns, a turn after a reasoning block that only a
// final reply keeps) and batch.turnJoins; sets batch.rolesRecovered. Returns the messages found.
// joins: each row's reply-to-user joins and packing signs (ReplyJoins.h), when asked.
long recoverRoles(Batch& batch, const RoleMarkers& markers, const Tokenizer& tokenizer,
                  std::vector<RowJoins>* joins = nullptr);

} // namespace maskscope
