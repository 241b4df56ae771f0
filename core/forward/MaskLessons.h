// The masking article's lessons measured by the engine on one batch (ForwardModel::lessons): what each
// ignored position sends into the weights (exactly 0), one AdamW step with every label -100 against one
// with the labels as given, a prompt token changed (the prompt is read) and the labels flipped (the
// forward pass is the same). Plain types, no torch; buildLessonsRequest picks the probe and the flip.
#pragma once
#include "core/data/Batch.h"
#include "core/forward/ForwardEngine.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace maskscope {

// The engine computes a gradient per scored position (one backward each): at most this many positions
// (rows x (length - 1)) per request; a larger batch is refused, never sampled.
inline constexpr int64_t kMaxLessonPositions = 1024;

// One input token to replace: an ignored prompt position before a graded one. row < 0: none.
struct LessonsProbe {
  int64_t row = -1, position = -1;
  int64_t token = -1; // the replacement id (the engine checks it differs and is in the vocabulary)
};

struct LessonsRequest {
  ForwardInputs inputs; // labels required
  IntGrid roles;        // [B, T] PositionRole of each position
  LessonsProbe probe;
  IntGrid flippedLabels; // [B, T]: graded <-> -100 (empty: no comparison)
  // The AdamW step (core of engine/Trainer): learning rate, betas, epsilon, clipping. Both compared
  // steps run with weight decay 0; weightDecay is the decay-only step's (decoupled decay shrinks the
  // matrices whatever the labels, so it is measured apart).
  TrainSettings step;
};

// The gradient that the loss term of one scored position sends into the weights: the term's share of
// d(mean loss)/d(weights), one backward of its own. position t >= 1: the label at t, scored from the
// logits at t - 1.
struct PositionGradient {
  int64_t row = 0, position = 0;
  int64_t role = RoleUnknown; // of the target position t
  bool graded = false;        // the label at t reaches the loss (gradedAt)
  double norm = 0.0;          // L2 norm over every weight
  int64_t nonZero = 0;        // weight-gradient entries that are not 0
};

// One AdamW step from the same weights.
struct StepOutcome {
  int64_t graded = 0;           // positions scored
  double loss = 0.0;            // what the step minimised: summed NLL / max(1, graded) (0: nothing graded)
  int64_t nonZeroGradients = 0; // gradient entries that are not 0, before clipping
  double gradNorm = 0.0;        // global norm before clipping
  int64_t weightsMoved = 0;     // weights whose bits the step changed
};

struct MaskLessons {
  std::string device;
  int64_t weights = 0; // trainable values of the model
  // (1) ignored -> no loss -> no gradient -> no update
  std::vector<PositionGradient> positions; // every row and t >= 1, row-major
  double fullGradientNorm = 0.0;           // of the mean loss (the positions' gradients summed)
  double learningRate = 0.0;
  StepOutcome allIgnored, asGiven; // weight decay 0
  double weightDecay = 0.0;        // of the decay-only step
  int64_t movedByDecayAlone = 0;   // every label -100, weight decay on: weights shrunk anyway
  // (2) masked tokens are still read: the probe's token replaced
  bool probed = false;
  LessonsProbe probe;
  int64_t probeTokenBefore = -1;
  int64_t rowGraded = 0; // graded positions of the probe's row (its reply)
  double rowLossBefore = 0.0, rowLossAfter = 0.0, lossBefore = 0.0, lossAfter = 0.0;
  // (2) masking is free: the same inputs with flippedLabels
  bool flipCompared = false;
  double lossFlipped = std::numeric_limits<double>::quiet_NaN();
  int64_t gradedFlipped = 0;
  double maxLogitChangeFlip = 0.0; // max |logit| difference between the two forward passes
  std::vector<std::string> notes;
};

// The per-position figures summed up (from MaskLessons::positions).
struct GradientTally {
  int64_t graded = 0, ignored = 0;
  int64_t ignoredByRole[kRoleCount] = {0, 0, 0, 0};
  int64_t ignoredNonZero = 0; // ignored positions whose gradient has any non-zero entry
  double maxIgnoredNorm = 0.0;
  double minGradedNorm = 0.0, maxGradedNorm = 0.0; // 0 when nothing is graded
};
GradientTally tallyGradients(const MaskLessons& lessons);

// True when every lesson holds as the article states it: each ignored position's gradient exactly 0,
// the all-ignored step moving no weight, the flip leaving every logit the same.
bool lessonsHold(const MaskLessons& lessons);

// The request for a collated batch (roles from positionRoles). Probe: in the first row with a graded
// position, the last ignored prompt position before its first graded one (a user-message token when
// the collator marked them), replaced by the next id (mod vocabSize). Flip: every graded label ->
// -100, every other non-pad label -> its input id. effectiveMask: the attention mask the implementation
// applies, as buildLossRequest takes it (null: the batch's own). Throws Error when the batch has no
// labels or more than kMaxLessonPositions scored positions.
LessonsRequest buildLessonsRequest(const Batch& batch, int64_t vocabSize, std::vector<std::string>* notes = nullptr,
                                   const IntGrid* effectiveMask = nullptr);

} // namespace maskscope
