// The facts about one batch row that the summary, the session's row titles, the linter and the
// loss breakdown all report: which positions are padding (one rule), the role each position plays
// in the loss, and the counts by role. Computed here once so those views can never disagree.
#pragma once
#include "core/data/Batch.h"

#include <cstdint>
#include <vector>

namespace maskscope {

// Role of a position in the loss: padding, a reply the assistant writes, the prompt around it, or
// unknown (no collator metadata, or a packing separator). The engine's contract reuses it.
enum PositionRole : int64_t { RolePrompt = 0, RoleReply = 1, RolePad = 2, RoleUnknown = 3 };
inline constexpr int kRoleCount = 4;
const char* positionRoleName(PositionRole role); // "prompt", "reply", "pad", "unknown"

// Role of a collated position: Padding -> pad; the reply flag -> reply (an assistant header is
// template scaffolding, so prompt); a packing separator -> unknown; every other kind -> prompt.
PositionRole roleOfMeta(const PositionMeta& meta);
// [T] roles of row r: from the collator's metadata when the row has it, else RolePad where
// paddingOfRow finds padding and RoleUnknown elsewhere.
std::vector<PositionRole> rolesOfRow(const Batch& batch, int64_t row);

// "Graded", in every count maskscope shows (collate, lint, loss, tables, the app): the label at
// position t reaches the loss, labels[t] != -100 with t >= 1. The model shifts (the logits at t-1
// are scored on token t), so a label at position 0 is never scored (RowFacts::labelAtFirstPosition
// reports one). docs/cli.md ("Graded") states the same. False when labels are missing or t is out
// of the row.
bool gradedAt(const Batch& batch, int64_t row, int64_t t);
int64_t gradedInRow(const Batch& batch, int64_t row); // graded positions of one row

// The share of the graded positions (graded as gradedAt: the denominator every view names) that play
// `role`: counts[role] / the sum over roles; NaN when nothing is graded. The teaching steps' "pad
// share", the loss view's "share of the graded positions" and LossBreakdown::tokenShare are this.
double gradedShare(const int64_t (&counts)[kRoleCount], int role);

// Counts of one row; graded as gradedAt.
struct RowFacts {
  int64_t positions = 0;             // T
  int64_t pads = 0;                  // padding positions (paddingOfRow)
  int64_t attendedPads = 0;          // pads the model attends (attention_mask != 0, or no mask)
  int64_t byRole[kRoleCount] = {};   // positions by role
  int64_t graded[kRoleCount] = {};   // graded positions by role (see above)
  int64_t special = 0;               // non-pad positions holding a special token (collator metadata)
  bool labelAtFirstPosition = false; // labels[0] != -100: present in the batch but never scored
  int64_t real() const { return positions - pads; }
  int64_t gradedTotal() const { return graded[0] + graded[1] + graded[2] + graded[3]; }
  double gradedShareOf(PositionRole role) const { return gradedShare(graded, role); }
  RowFacts& operator+=(const RowFacts& o);
};

RowFacts rowFacts(const Batch& batch, int64_t row);
RowFacts batchFacts(const Batch& batch); // the sum over every row

} // namespace maskscope
