// Turns a collated Batch into the loss comparison the engine runs: the role of every position
// (pad / prompt / reply), the packed segments, and the "fixed" and "block_diagonal" masks.
// Plain C++ (no torch), so the mask logic is testable without the module.
#pragma once
#include "core/data/Batch.h"
#include "core/forward/ForwardEngine.h"

#include <string>
#include <vector>

namespace maskscope {

// Per position: RolePad / RoleReply / RolePrompt from Batch::meta when present; without meta,
// RolePad where detectPaddingOfRow (core/mask/PaddingDetection.h, the linter's rule too) finds
// padding, RoleUnknown elsewhere.
IntGrid positionRoles(const Batch& batch, std::vector<std::string>* notes = nullptr);

// Per position: the packed example it belongs to (1, 2, 3, ...), 0 for pads. Taken from a segment-id
// attention mask, else Batch::segments, else position ids restarting at 0. One segment = 1 everywhere.
IntGrid packedSegments(const Batch& batch, const IntGrid& roles);
bool isPacked(const IntGrid& segments);

// attention_mask = 1 (or the segment id) at real positions, 0 at pads; labels -100 at pads.
IntGrid fixedAttentionMask(const Batch& batch, const IntGrid& roles);
IntGrid fixedLabels(const Batch& batch, const IntGrid& roles);
// Position ids restarting at 0 in each segment (pads keep their as-given or default position).
IntGrid resetPositionIds(const Batch& batch, const IntGrid& segments);

// The request for ForwardModel::analyse: as given, fixed, labels_fixed_only, attention_fixed_only,
// and block_diagonal when some row is packed. Throws Error when the grids are unusable.
LossRequest buildLossRequest(const Batch& batch, bool gradients, std::vector<std::string>* notes = nullptr);

} // namespace maskscope
