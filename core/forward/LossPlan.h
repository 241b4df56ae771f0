// Turns a collated Batch into the loss comparison the engine runs: the role of every position
// (pad / prompt / reply), the packed segments, the "fixed" and "block_diagonal" masks, and the
// loss breakdown of one row (counts and shares by role).
// Plain C++ (no torch), so the mask logic is testable without the module.
#pragma once
#include "core/data/Batch.h"
#include "core/forward/ForwardEngine.h"

#include <optional>
#include <string>
#include <vector>

namespace maskscope {

// Per position: rolesOfRow (core/mask/RowFacts.h) of every row, the rule the linter, the summary
// and the views use too: RolePad / RoleReply / RolePrompt / RoleUnknown from Batch::meta when
// present; without meta, RolePad where paddingOfRow finds padding, RoleUnknown elsewhere.
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
// effectiveMask: the [B, T] segment-id mask the attention implementation really applies
// (EffectiveMask::segmentIdMask), used for "as given" and labels_fixed_only; null: the batch's own mask.
LossRequest buildLossRequest(const Batch& batch, bool gradients, std::vector<std::string>* notes = nullptr,
                             const IntGrid* effectiveMask = nullptr);

// The loss arithmetic of one row. Graded term t: labels[t] != -100 for t >= 1 (the model shifts:
// the logits at t-1 predict token t), its role is the role of t; the counts equal rowFacts().graded.
struct LossBreakdown {
  int64_t graded[kRoleCount] = {0, 0, 0, 0}; // by PositionRole: prompt, reply, pad, unknown
  double sum[kRoleCount] = {0, 0, 0, 0};
  int64_t total() const { return graded[0] + graded[1] + graded[2] + graded[3]; }
  double totalSum() const { return sum[0] + sum[1] + sum[2] + sum[3]; }
  double asGiven() const;            // mean over every graded term
  double padsNotGraded() const;      // mean without pad terms ("fixed" labels)
  double repliesOnly() const;        // mean over reply terms only
  double lossShare(int role) const;  // share of the summed loss
  double tokenShare(int role) const; // share of the graded terms (each weighs 1/N in the mean); not
                                     // the gradient: that is measured (padGradientShare)
};
// Row r of a batch as a batch of one (grids, segments, meta, source row, special ids): what a
// per-row analysis (the loss view, compare) runs. Grids with fewer rows stay empty.
Batch batchRow(const Batch& batch, int64_t r);

// The "fixed" loss of an analysed row (or batch): the block_diagonal variant when packed (the
// cross-example attention removed and positions restarting: what fixes a packed row), else the
// "fixed" variant (pads neither attended nor graded). Empty when the report lacks that variant.
std::optional<double> fixedLossOf(const LossReport& report, bool packed);
// The engine's measured split of the as-given loss's gradient: ||g_pad|| / (||g_pad|| + ||g_real||),
// g_pad and g_real the gradients of the pad-target and real-target terms. NaN when not computed or both 0.
double padGradientShare(const LossReport& report);

// The per-token losses the views use while no model is loaded, by the role of the predicted token
// (unknown counts as prompt). The loss view edits them and compare reads the same values.
struct ExampleLosses {
  double prompt = 2.0, reply = 1.0, pad = 0.05;
  friend bool operator==(const ExampleLosses&, const ExampleLosses&) = default;
};
// [T] nll[t] = the example loss of token t by roles(row, t), for t >= 1 (nll[0] = 0: never scored).
std::vector<double> exampleNll(const Batch& batch, int row, const IntGrid& roles, const ExampleLosses& losses);

// nll[t] = loss of token t (so index t, not t-1); roles from positionRoles().
LossBreakdown computeLossBreakdown(const Batch& batch, int row, const std::vector<double>& nll, const IntGrid& roles);
// The same with the roles of positionRoles(batch).
LossBreakdown computeLossBreakdown(const Batch& batch, int row, const std::vector<double>& nll);

} // namespace maskscope
