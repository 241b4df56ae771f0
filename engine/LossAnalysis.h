// The mask comparison behind `maskscope loss` (ForwardModel::analyse): the as-given loss and each
// variant's over the same input_ids, per-token NLL, loss by the target's role, the largest logit
// change at real positions, and the gradient norms of the pad and real parts of the as-given loss.
#pragma once
#include "engine/TorchModel.h"

namespace maskscope::engine {

// Throws std::runtime_error (bad request, cancelled) or c10::Error (TorchModel::analyse converts it).
LossReport analyseLoss(TorchModel& model, const LossRequest& request, const RunControl& control);

} // namespace maskscope::engine
