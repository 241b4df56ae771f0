// The head's NLL by chunks of positions (LogitsHead.h), with its gradient recomputed chunk by chunk.
// Shapes: n positions, k targets per position, V vocabulary, c positions per chunk.
#include "engine/LogitsHead.h"

#include <algorithm>

namespace maskscope::engine {
namespace {

struct ChunkLogits {
  at::Tensor logits;  // [c, V] float32
  at::Tensor capTanh; // tanh(l / cap) of the final soft-cap, undefined without one
};

ChunkLogits chunkLogits(const at::Tensor& h, const at::Tensor& head, double softcap) {
  at::Tensor l = at::linear(h, head);
  ChunkLogits out;
  if (softcap > 0) { // Gemma 2's final_logit_softcapping
    out.capTanh = at::tanh(l / softcap);
    l = out.capTanh * softcap;
  }
  out.logits = l.to(at::kFloat);
  return out;
}

at::Tensor nllChunks(const at::Tensor& h, const at::Tensor& head, const at::Tensor& targets, double softcap,
                     int64_t step) {
  const int64_t n = h.size(0);
  std::vector<at::Tensor> parts;
  for (int64_t t0 = 0; t0 < n; t0 += step) {
    const int64_t c = std::min(step, n - t0);
    const at::Tensor lg = chunkLogits(h.narrow(0, t0, c), head, softcap).logits; // [c, V]
    parts.push_back(at::logsumexp(lg, -1, true) - lg.gather(1, targets.narrow(0, t0, c)));
  }
  return at::cat(parts, 0);
}

// d/dlogits of sum_j g[t][j] * (logsumexp(l[t]) - l[t][target_j]) = softmax(l[t]) * sum_j g[t][j]
// - scatter of g onto the targets; back through the float32 cast and the soft-cap (1 - tanh^2) to
// dh = dl head and dHead += dl^T h (float32 over the chunks).
struct TargetNllFunction : public torch::autograd::Function<TargetNllFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& h, const at::Tensor& head,
                            const at::Tensor& targets, double softcap, int64_t step) {
    ctx->save_for_backward({h, head, targets});
    ctx->saved_data["softcap"] = softcap;
    ctx->saved_data["step"] = step;
    at::NoGradGuard noGraph;
    return nllChunks(h, head, targets, softcap, step);
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list gradOut) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &h = saved[0], &head = saved[1], &targets = saved[2], &g = gradOut[0]; // g [n, k]
    const double softcap = ctx->saved_data["softcap"].toDouble();
    const int64_t step = ctx->saved_data["step"].toInt(), n = h.size(0);
    at::NoGradGuard noGraph;
    at::Tensor dh = at::empty(h.sizes(), h.options());
    at::Tensor dHead = at::zeros(head.sizes(), head.options().dtype(at::kFloat));
    for (int64_t t0 = 0; t0 < n; t0 += step) {
      const int64_t c = std::min(step, n - t0);
      const at::Tensor hc = h.narrow(0, t0, c), gc = g.narrow(0, t0, c).to(at::kFloat);
      const ChunkLogits cl = chunkLogits(hc, head, softcap);
      at::Tensor dl = at::softmax(cl.logits, -1) * gc.sum(1, true);
      dl.scatter_add_(1, targets.narrow(0, t0, c), -gc);
      dl = dl.to(h.scalar_type());
      if (cl.capTanh.defined()) dl = dl * (cl.capTanh * cl.capTanh).neg_().add_(1.0);
      dh.narrow(0, t0, c).copy_(at::matmul(dl, head));
      dHead.add_(at::matmul(dl.t(), hc));
    }
    return {dh, dHead.to(head.scalar_type()), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

} // namespace

at::Tensor targetNll(const at::Tensor& head, double softcap, const at::Tensor& h, const at::Tensor& targets,
                     int64_t step) {
  if (h.size(0) == 0) return at::zeros({0, targets.size(1)}, h.options().dtype(at::kFloat)); // a one-token row
  const bool graph = at::GradMode::is_enabled() && (h.requires_grad() || head.requires_grad());
  if (!graph) return nllChunks(h, head, targets, softcap, step);
  return TargetNllFunction::apply(h, head, targets, softcap, step);
}

} // namespace maskscope::engine
