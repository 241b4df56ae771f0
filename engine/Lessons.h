// The masking lessons inside the LibTorch module (ForwardModel::lessons, core/forward/MaskLessons.h):
// per-position weight gradients, AdamW steps from the same weights with the trainer's arithmetic
// (engine/Trainer.h), a prompt token changed and the labels flipped.
#pragma once
#include "core/forward/MaskLessons.h"
#include "engine/TorchModel.h"

namespace maskscope::engine {

// Throws std::runtime_error (bad request, over kMaxLessonPositions, cancelled) or c10::Error
// (TorchModel::lessons converts it). The model's own weights are never written.
MaskLessons computeLessons(TorchModel& model, const LessonsRequest& request, const RunControl& control);

} // namespace maskscope::engine
