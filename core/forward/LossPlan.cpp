// Role, segment and fixed-mask derivation for the loss comparison, and the loss breakdown
// arithmetic of one row (see LossPlan.h).
#include "core/forward/LossPlan.h"
#include "core/mask/PackedSegments.h"
#include "core/mask/RowFacts.h"
#include "core/util/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace maskscope {
namespace {

void checkShapes(const Batch& b) {
  const IntGrid& ids = b.inputIds;
  if (ids.rows <= 0 || ids.cols <= 0) throw Error("the batch is empty", {b.origin, -1, -1, -1, "input_ids"});
  auto check = [&](const IntGrid& g, const char* name, bool optional) {
    if (optional && g.empty()) return;
    if (!g.sameShape(ids) || g.values.size() != size_t(ids.rows * ids.cols))
      throw Error(std::string(name) + " has shape [" + std::to_string(g.rows) + ", " + std::to_string(g.cols) +
                      "] but input_ids has [" + std::to_string(ids.rows) + ", " + std::to_string(ids.cols) + "]",
                  {b.origin, -1, -1, -1, name});
  };
  check(ids, "input_ids", false);
  check(b.attentionMask, "attention_mask", true);
  check(b.labels, "labels", false);
  check(b.positionIds, "position_ids", true);
}

double safeDiv(double a, double b) { return b == 0 ? std::nan("") : a / b; }

int64_t maskAt(const Batch& b, int64_t r, int64_t c) { return b.attentionMask.empty() ? 1 : b.attentionMask.at(r, c); }

bool maskHoldsSegments(const Batch& b) {
  for (int64_t v : b.attentionMask.values)
    if (v > 1) return true;
  return false;
}

} // namespace

IntGrid positionRoles(const Batch& batch, std::vector<std::string>* notes) {
  const int64_t B = batch.inputIds.rows, T = batch.inputIds.cols;
  IntGrid roles(B, T, RoleUnknown);
  bool haveMeta = batch.meta.size() == size_t(B);
  for (int64_t r = 0; haveMeta && r < B; ++r) haveMeta = batch.meta[size_t(r)].size() == size_t(T);
  if (!haveMeta && !batch.padTokenId && notes)
    notes->push_back("no pad_token_id: padding taken from attention_mask == 0");
  for (int64_t r = 0; r < B; ++r) {
    const std::vector<PositionRole> row = rolesOfRow(batch, r); // the one rule (core/mask/RowFacts.h)
    for (int64_t c = 0; c < T; ++c) roles.at(r, c) = row[size_t(c)];
  }
  return roles;
}

IntGrid packedSegments(const Batch& batch, const IntGrid& roles) {
  const int64_t B = batch.inputIds.rows, T = batch.inputIds.cols;
  IntGrid seg(B, T, 0);
  const bool maskSegments = maskHoldsSegments(batch);
  for (int64_t r = 0; r < B; ++r) {
    // The collator's segments, else core/mask's recovery from a dump (position-id restarts, or
    // separators followed by a conversation start: naive packing).
    const std::vector<Segment> recovered =
        maskSegments || batch.segments.size() == size_t(B) ? std::vector<Segment>{} : segmentsOfRow(batch, r);
    const std::vector<Segment>* given = batch.segments.size() == size_t(B) && batch.segments[size_t(r)].size() > 1
                                            ? &batch.segments[size_t(r)]
                                        : recovered.size() > 1 ? &recovered
                                                               : nullptr;
    int64_t current = 0;
    int64_t previousMask = 0;
    for (int64_t c = 0; c < T; ++c) {
      if (roles.at(r, c) == RolePad) continue;
      if (maskSegments) {
        int64_t m = maskAt(batch, r, c);
        if (m != 0 && m != previousMask) ++current;
        if (m != 0) previousMask = m;
      } else if (given) {
        int64_t idx = 0;
        for (size_t s = 0; s < given->size(); ++s)
          if (c >= (*given)[s].begin && c < (*given)[s].end) idx = int64_t(s) + 1;
        current = idx != 0 ? idx : (current == 0 ? 1 : current);
      } else if (!batch.positionIds.empty()) {
        if (current == 0 || (batch.positionIds.at(r, c) == 0 && c > 0)) ++current;
      } else if (current == 0) {
        current = 1;
      }
      seg.at(r, c) = current == 0 ? 1 : current;
    }
  }
  return seg;
}

bool isPacked(const IntGrid& segments) {
  for (int64_t v : segments.values)
    if (v > 1) return true;
  return false;
}

IntGrid fixedAttentionMask(const Batch& batch, const IntGrid& roles) {
  IntGrid m(batch.inputIds.rows, batch.inputIds.cols, 1);
  const bool keepSegments = maskHoldsSegments(batch);
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t c = 0; c < m.cols; ++c) {
      if (roles.at(r, c) == RolePad)
        m.at(r, c) = 0;
      else if (keepSegments)
        m.at(r, c) = std::max<int64_t>(1, maskAt(batch, r, c));
    }
  return m;
}

IntGrid fixedLabels(const Batch& batch, const IntGrid& roles) {
  IntGrid l = batch.labels;
  for (int64_t r = 0; r < l.rows; ++r)
    for (int64_t c = 0; c < l.cols; ++c)
      if (roles.at(r, c) == RolePad) l.at(r, c) = kIgnoreIndex;
  return l;
}

IntGrid resetPositionIds(const Batch& batch, const IntGrid& segments) {
  const int64_t B = batch.inputIds.rows, T = batch.inputIds.cols;
  IntGrid p(B, T, 0);
  for (int64_t r = 0; r < B; ++r) {
    int64_t current = -1, begin = 0;
    for (int64_t c = 0; c < T; ++c) {
      int64_t s = segments.at(r, c);
      if (s == 0) {
        p.at(r, c) = batch.positionIds.empty() ? c : batch.positionIds.at(r, c);
        continue;
      }
      if (s != current) {
        current = s;
        begin = c;
      }
      p.at(r, c) = c - begin;
    }
  }
  return p;
}

LossRequest buildLossRequest(const Batch& batch, bool gradients, std::vector<std::string>* notes,
                             const IntGrid* effectiveMask) {
  checkShapes(batch);
  if (effectiveMask && !effectiveMask->sameShape(batch.inputIds))
    throw Error("the effective attention mask's shape differs from input_ids'");
  const IntGrid& givenMask = effectiveMask ? *effectiveMask : batch.attentionMask;
  LossRequest req;
  req.asGiven.inputIds = batch.inputIds;
  req.asGiven.attentionMask = givenMask;
  req.asGiven.positionIds = batch.positionIds;
  req.asGiven.labels = batch.labels;
  req.roles = positionRoles(batch, notes);
  req.gradients = gradients;

  IntGrid fixedMask = fixedAttentionMask(batch, req.roles);
  IntGrid fixedLab = fixedLabels(batch, req.roles);
  req.variants.push_back({"fixed", fixedMask, batch.positionIds, fixedLab});
  req.variants.push_back({"labels_fixed_only", givenMask, batch.positionIds, fixedLab});
  req.variants.push_back({"attention_fixed_only", fixedMask, batch.positionIds, batch.labels});
  req.compareLogitsWith = "attention_fixed_only";

  IntGrid segments = packedSegments(batch, req.roles);
  if (isPacked(segments))
    req.variants.push_back({"block_diagonal", segments, resetPositionIds(batch, segments), batch.labels});
  return req;
}

Batch batchRow(const Batch& b, int64_t r) {
  auto rowOf = [r](const IntGrid& g) {
    if (g.rows <= r) return IntGrid();
    IntGrid one(1, g.cols);
    std::copy(g.values.begin() + long(r * g.cols), g.values.begin() + long((r + 1) * g.cols), one.values.begin());
    return one;
  };
  Batch one;
  one.inputIds = rowOf(b.inputIds);
  one.attentionMask = rowOf(b.attentionMask);
  one.labels = rowOf(b.labels);
  one.positionIds = rowOf(b.positionIds);
  if (size_t(r) < b.segments.size()) one.segments = {b.segments[size_t(r)]};
  if (size_t(r) < b.meta.size()) one.meta = {b.meta[size_t(r)]};
  if (size_t(r) < b.sourceRows.size()) one.sourceRows = {b.sourceRows[size_t(r)]};
  one.padTokenId = b.padTokenId;
  one.eosTokenId = b.eosTokenId;
  one.bosTokenId = b.bosTokenId;
  one.origin = b.origin;
  return one;
}

double LossBreakdown::asGiven() const { return safeDiv(totalSum(), double(total())); }
double LossBreakdown::padsNotGraded() const {
  return safeDiv(totalSum() - sum[RolePad], double(total() - graded[RolePad]));
}
double LossBreakdown::repliesOnly() const { return safeDiv(sum[RoleReply], double(graded[RoleReply])); }
double LossBreakdown::lossShare(int r) const { return safeDiv(sum[r], totalSum()); }
double LossBreakdown::tokenShare(int r) const { return gradedShare(graded, r); } // RowFacts.h: the one share

std::optional<double> fixedLossOf(const LossReport& report, bool packed) {
  const std::string name = packed ? "block_diagonal" : "fixed";
  for (const auto& [variant, loss] : report.variantLoss)
    if (variant == name) return loss;
  return std::nullopt;
}

double padGradientShare(const LossReport& report) {
  if (!report.gradientsComputed) return std::numeric_limits<double>::quiet_NaN();
  return safeDiv(report.gradNormPad, report.gradNormPad + report.gradNormReal);
}

std::vector<double> exampleNll(const Batch& b, int row, const IntGrid& roles, const ExampleLosses& losses) {
  std::vector<double> nll(size_t(std::max<int64_t>(0, b.length())), 0.0);
  for (int64_t t = 1; t < b.length(); ++t) {
    const int role =
        roles.sameShape(b.inputIds) && row >= 0 && row < roles.rows ? int(roles.at(row, t)) : int(RoleUnknown);
    nll[size_t(t)] = role == RoleReply ? losses.reply : role == RolePad ? losses.pad : losses.prompt;
  }
  return nll;
}

LossBreakdown computeLossBreakdown(const Batch& b, int row, const std::vector<double>& nll, const IntGrid& roles) {
  LossBreakdown out;
  if (row < 0 || row >= b.batchSize() || !b.labels.sameShape(b.inputIds)) return out;
  for (int64_t t = 1; t < b.length(); ++t) {
    if (!gradedAt(b, row, t)) continue; // reaches the loss (RowFacts.h)
    int role = roles.sameShape(b.inputIds) ? int(roles.at(row, t)) : int(RoleUnknown);
    if (role < 0 || role >= kRoleCount) role = RoleUnknown;
    out.graded[role] += 1;
    out.sum[role] += size_t(t) < nll.size() ? nll[size_t(t)] : 0.0;
  }
  return out;
}

LossBreakdown computeLossBreakdown(const Batch& b, int row, const std::vector<double>& nll) {
  IntGrid roles;
  if (b.inputIds.rows > 0 && b.inputIds.cols > 0) roles = positionRoles(b);
  return computeLossBreakdown(b, row, nll, roles);
}

} // namespace maskscope
