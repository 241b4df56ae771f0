// The lessons' request from a collated batch and the sums of the engine's answer (MaskLessons.h).
// Graded is core/mask's gradedAt throughout; the engine measures, this only picks and sums.
#include "core/forward/MaskLessons.h"
#include "core/forward/LossPlan.h"
#include "core/mask/RowFacts.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {
namespace {

// The last ignored prompt position before the first graded one of the first row that grades any; a
// user-message token when the collator's metadata marks one there. position -1: none.
LessonsProbe pickProbe(const Batch& batch, const IntGrid& roles, int64_t vocabSize) {
  LessonsProbe p;
  for (int64_t r = 0; r < batch.inputIds.rows && p.row < 0; ++r) {
    int64_t first = 1;
    while (first < batch.inputIds.cols && !gradedAt(batch, r, first)) ++first;
    if (first >= batch.inputIds.cols) continue;
    const bool haveMeta = size_t(r) < batch.meta.size() && batch.meta[size_t(r)].size() == size_t(batch.inputIds.cols);
    int64_t any = -1, user = -1;
    for (int64_t t = first - 1; t >= 0 && user < 0; --t) {
      if (gradedAt(batch, r, t) || roles.at(r, t) == RolePad || roles.at(r, t) == RoleReply) continue;
      if (any < 0) any = t;
      if (haveMeta && batch.meta[size_t(r)][size_t(t)].kind == PositionKind::User &&
          !batch.meta[size_t(r)][size_t(t)].special)
        user = t;
    }
    const int64_t t = user >= 0 ? user : any;
    if (t < 0) continue;
    p.row = r;
    p.position = t;
    p.token = (batch.inputIds.at(r, t) + 1) % std::max<int64_t>(2, vocabSize);
  }
  return p;
}

} // namespace

LessonsRequest buildLessonsRequest(const Batch& batch, int64_t vocabSize, std::vector<std::string>* notes,
                                   const IntGrid* effectiveMask) {
  const int64_t B = batch.inputIds.rows, T = batch.inputIds.cols;
  if (B <= 0 || T < 2) throw Error("the lessons need a batch of rows of at least two positions", {batch.origin});
  if (!batch.labels.sameShape(batch.inputIds)) throw Error("the lessons need labels", {batch.origin});
  if (B * (T - 1) > kMaxLessonPositions)
    throw Error("the lessons compute one gradient per scored position: " + std::to_string(B * (T - 1)) +
                    " positions (rows x (length - 1)) is over " + std::to_string(kMaxLessonPositions) +
                    "; take fewer rows (--rows)",
                {batch.origin});
  if (effectiveMask && !effectiveMask->sameShape(batch.inputIds))
    throw Error("the effective attention mask's shape differs from input_ids'");
  LessonsRequest req;
  req.inputs.inputIds = batch.inputIds;
  req.inputs.attentionMask = effectiveMask ? *effectiveMask : batch.attentionMask;
  req.inputs.positionIds = batch.positionIds;
  req.inputs.labels = batch.labels;
  req.roles = positionRoles(batch, notes);
  req.probe = pickProbe(batch, req.roles, vocabSize);
  if (req.probe.row < 0 && notes) notes->push_back("no ignored prompt token before a graded one: nothing to change");
  req.flippedLabels = IntGrid(B, T, kIgnoreIndex);
  for (int64_t r = 0; r < B; ++r)
    for (int64_t t = 0; t < T; ++t)
      if (!gradedAt(batch, r, t) && req.roles.at(r, t) != RolePad) req.flippedLabels.at(r, t) = batch.inputIds.at(r, t);
  return req;
}

GradientTally tallyGradients(const MaskLessons& lessons) {
  GradientTally t;
  bool firstGraded = true;
  for (const PositionGradient& p : lessons.positions) {
    if (p.graded) {
      ++t.graded;
      t.minGradedNorm = firstGraded ? p.norm : std::min(t.minGradedNorm, p.norm);
      t.maxGradedNorm = std::max(t.maxGradedNorm, p.norm);
      firstGraded = false;
      continue;
    }
    ++t.ignored;
    ++t.ignoredByRole[std::clamp<int64_t>(p.role, 0, kRoleCount - 1)];
    if (p.nonZero > 0) ++t.ignoredNonZero;
    t.maxIgnoredNorm = std::max(t.maxIgnoredNorm, p.norm);
  }
  return t;
}

bool lessonsHold(const MaskLessons& lessons) {
  const GradientTally t = tallyGradients(lessons);
  return t.ignoredNonZero == 0 && t.maxIgnoredNorm == 0.0 && lessons.allIgnored.weightsMoved == 0 &&
         lessons.allIgnored.nonZeroGradients == 0 && (!lessons.flipCompared || lessons.maxLogitChangeFlip == 0.0);
}

} // namespace maskscope
