// Recovering roles in a batch dump (ids only): every role's header and footer token sequences are
// learnt by rendering probe conversations through the template and tokenizer, then matched in the
// ids to fill Batch::meta (role, message, reply, closing token, truncated reply).
#pragma once
#include "core/collate/ConversationEncoder.h"
#include "core/data/Batch.h"

#include <string>
#include <vector>

namespace maskscope {

struct RoleMarker {
  std::string role;
  PositionKind kind = PositionKind::Unknown;
  std::vector<int32_t> header; // tokens from the message block's start to its content
  std::vector<int32_t> footer; // tokens after the content through the closing special token
  int closingIndex = -1;       // index in footer of the token that closes a reply, -1 when none
};

struct RoleMarkers {
  std::vector<RoleMarker> roles;       // longest header first
  std::optional<int32_t> closingToken; // the assistant's closing token (for eos-mismatch)
  TokenizedConversation probe;         // the probe conversation as encoded (for template checks)
  std::vector<Message> probeMessages;
  bool usable() const { return !roles.empty(); }
};

// Renders probes; throws nothing (an unusable result when the template rejects every probe).
RoleMarkers learnRoleMarkers(const ConversationEncoder& encoder, const RenderOptions& render);
// Fills batch.meta for every row from the markers; returns the number of messages found.
long recoverRoles(Batch& batch, const RoleMarkers& markers, const Tokenizer& tokenizer);

} // namespace maskscope
