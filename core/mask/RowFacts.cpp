// Row facts; see RowFacts.h for the conventions (one padding rule, graded = scored by the loss).
#include "core/mask/RowFacts.h"
#include "core/mask/GradedPositions.h"
#include "core/mask/PaddingDetection.h"

#include <cmath>

namespace maskscope {

const char* positionRoleName(PositionRole role) {
  switch (role) {
  case RolePrompt:
    return "prompt";
  case RoleReply:
    return "reply";
  case RolePad:
    return "pad";
  case RoleUnknown:
    return "unknown";
  }
  return "unknown";
}

PositionRole roleOfMeta(const PositionMeta& m) {
  if (m.kind == PositionKind::Padding) return RolePad;
  if (m.reply) return RoleReply;
  if (m.kind == PositionKind::Separator) return RoleUnknown;
  return RolePrompt;
}

std::vector<PositionRole> rolesOfRow(const Batch& b, int64_t r) {
  const int64_t T = b.length();
  std::vector<PositionRole> roles(size_t(T), RoleUnknown);
  if (size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T) {
    for (int64_t t = 0; t < T; ++t) roles[size_t(t)] = roleOfMeta(b.meta[size_t(r)][size_t(t)]);
    return roles;
  }
  const std::vector<uint8_t> pad = paddingOfRow(b, r);
  for (int64_t t = 0; t < T; ++t)
    if (pad[size_t(t)]) roles[size_t(t)] = RolePad;
  return roles;
}

bool gradedAt(const Batch& b, int64_t r, int64_t t) {
  return t >= 1 && t < b.length() && r >= 0 && r < b.batchSize() && b.labels.sameShape(b.inputIds) &&
         gradedLabel(t, b.labels.at(r, t));
}

int64_t gradedInRow(const Batch& b, int64_t r) {
  int64_t n = 0;
  for (int64_t t = 1; t < b.length(); ++t) n += gradedAt(b, r, t);
  return n;
}

double gradedShare(const int64_t (&counts)[kRoleCount], int role) {
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  if (total == 0 || role < 0 || role >= kRoleCount) return std::nan("");
  return double(counts[role]) / double(total);
}

RowFacts& RowFacts::operator+=(const RowFacts& o) {
  positions += o.positions;
  pads += o.pads;
  attendedPads += o.attendedPads;
  special += o.special;
  labelAtFirstPosition = labelAtFirstPosition || o.labelAtFirstPosition;
  for (int k = 0; k < kRoleCount; ++k) {
    byRole[k] += o.byRole[k];
    graded[k] += o.graded[k];
  }
  return *this;
}

RowFacts rowFacts(const Batch& b, int64_t r) {
  RowFacts f;
  if (r < 0 || r >= b.batchSize()) return f;
  const int64_t T = b.length();
  const std::vector<PositionRole> roles = rolesOfRow(b, r);
  const bool haveLabels = b.labels.sameShape(b.inputIds);
  const bool haveMask = b.attentionMask.sameShape(b.inputIds);
  const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T;
  f.positions = T;
  for (int64_t t = 0; t < T; ++t) {
    const PositionRole role = roles[size_t(t)];
    const bool labelled = haveLabels && b.labels.at(r, t) != kIgnoreIndex;
    ++f.byRole[role];
    if (role == RolePad) {
      ++f.pads;
      f.attendedPads += !haveMask || b.attentionMask.at(r, t) != 0; // no mask: every key is attended
    } else if (haveMeta && b.meta[size_t(r)][size_t(t)].special) {
      ++f.special;
    }
    if (t == 0)
      f.labelAtFirstPosition = labelled;
    else if (labelled)
      ++f.graded[role];
  }
  return f;
}

RowFacts batchFacts(const Batch& b) {
  RowFacts sum;
  for (int64_t r = 0; r < b.batchSize(); ++r) sum += rowFacts(b, r);
  return sum;
}

} // namespace maskscope
