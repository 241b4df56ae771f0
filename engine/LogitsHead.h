// The language-model head scored against targets: -log p(target | position) by chunks of positions,
// so only [chunk, V] logits exist at once, also under gradients (a custom autograd Function that
// keeps the hidden states and recomputes each chunk's logits in the backward, not every [chunk, V]).
#pragma once
#include <torch/torch.h>

namespace maskscope::engine {

// -log softmax(logits(h[t]))[targets[t][j]] for hidden states h [n, hidden] and targets [n, k] int64
// -> [n, k] float32, as logsumexp(logits) - logits[target], `step` positions at a time. The logits as
// TransformerModel::logits: h head^T (head [V, hidden]) in the compute dtype, soft-capped (softcap >
// 0: tanh(l / softcap) * softcap), then float32. With gradients on (h or head requiring grad) the
// graph holds h and the head, never the logits.
at::Tensor targetNll(const at::Tensor& head, double softcap, const at::Tensor& h, const at::Tensor& targets,
                     int64_t step);

} // namespace maskscope::engine
