// The attention core of the decoder (ChunkedAttention.h): query blocks in the forward, a
// flash-attention-style backward in plain ATen (the block's probabilities recomputed from q, k, v),
// and the fused call of LibTorch 2.x. Shapes: b rows, T positions, H heads, kvH key/value heads,
// rep = H / kvH, D head dim; a block holds qn query rows and the kn keys they can reach.
#include "engine/ChunkedAttention.h"

#include <torch/version.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>

// at::scaled_dot_product_attention with its scale argument exists from LibTorch 2.1 on.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#define MASKSCOPE_FUSED_ATTENTION 1
#endif

namespace maskscope::engine {

double maskedScore(at::ScalarType dtype) {
  return dtype == at::kBFloat16 ? -3.3895313892515355e38
         : dtype == at::kHalf   ? -65504.0
                                : double(std::numeric_limits<float>::lowest());
}

at::Tensor allowedKeys(const at::Tensor& mask, int64_t q0, int64_t qn, int64_t k0, int64_t kn, int64_t window) {
  const at::TensorOptions idx = mask.options().dtype(at::kLong);
  at::Tensor mq = mask.narrow(1, q0, qn).unsqueeze(2), mk = mask.narrow(1, k0, kn).unsqueeze(1); // [b,qn,1], [b,1,kn]
  at::Tensor qi = at::arange(q0, q0 + qn, idx).unsqueeze(1), ki = at::arange(k0, k0 + kn, idx).unsqueeze(0);
  at::Tensor causal = ki <= qi;                                                    // [qn, kn]
  if (window > 0) causal = causal.logical_and((qi - ki) < window);                 // q - k < window
  return (mk != 0).logical_and(mq.eq(mk).logical_or(mq == 0)).logical_and(causal); // [b, qn, kn]
}

at::Tensor additiveMask(const at::Tensor& mask, at::ScalarType dtype, int64_t window) {
  const int64_t T = mask.size(1);
  at::Tensor allowed = allowedKeys(mask, 0, T, 0, T, window);
  at::Tensor add = at::zeros(allowed.sizes(), mask.options().dtype(dtype));
  add.masked_fill_(allowed.logical_not(), maskedScore(dtype));
  return add.unsqueeze(1); // [b, 1, T, T]
}

int64_t attentionBlockRows(int64_t b, int64_t H, int64_t T) {
  const int64_t perRow = std::max<int64_t>(1, b * H * T * 4);
  return std::clamp<int64_t>((int64_t(32) << 20) / perRow, 1, std::max<int64_t>(1, T));
}

namespace {

// One block: query rows q0 .. q0+qn and keys k0 .. k0+kn, with which of them each query may attend.
struct Block {
  int64_t q0, qn, k0, kn;
  at::Tensor allowed; // [b, qn, kn] bool
};

// The keys a block needs: up to its last query (causal), from its first query's window, and of those
// only the span some query of the block attends (a packed row's block skips the other examples: its
// cost follows the example's length, not the row's). A block with a fully masked query row (a left
// pad) keeps all T keys: the eager softmax makes such a row uniform over every key, and that is the
// output (and gradient) to reproduce.
Block blockAt(const at::Tensor& mask, int64_t q0, int64_t qn, int64_t window) {
  const int64_t T = mask.size(1);
  const int64_t k0 = window > 0 ? std::max<int64_t>(0, q0 - window + 1) : 0, kEnd = q0 + qn;
  Block bl{q0, qn, k0, kEnd - k0, allowedKeys(mask, q0, qn, k0, kEnd - k0, window)};
  if (!bl.allowed.any(-1).all().item<bool>()) {
    bl.k0 = 0;
    bl.kn = T;
    bl.allowed = allowedKeys(mask, q0, qn, 0, T, window);
    return bl;
  }
  const at::Tensor used = bl.allowed.any(1).any(0).to(at::kByte); // [kn]: keys some query attends
  const int64_t first = used.argmax().item<int64_t>(), last = bl.kn - 1 - used.flip(0).argmax().item<int64_t>();
  bl.k0 += first;
  bl.kn = last - first + 1;
  bl.allowed = bl.allowed.narrow(2, first, bl.kn);
  return bl;
}

struct BlockScores {
  at::Tensor probs;   // [b, H, qn, kn] float32, softmax of the masked scores
  at::Tensor capTanh; // tanh(s / cap) of the soft-cap, undefined without one
};

// The unmasked scores [b, H, qn, kn] in the compute dtype: (q k^T) * scale, then the soft-cap (Gemma 2,
// before the mask); capTanh gets tanh(s / cap) when there is one (the backward needs it). GQA without
// repeating k: the rep query heads of one kv head are stacked along the query axis.
at::Tensor rawScores(const at::Tensor& qBlock, const at::Tensor& kBlock, const AttentionSpec& s, at::Tensor* capTanh) {
  const int64_t b = qBlock.size(0), H = qBlock.size(1), qn = qBlock.size(2), D = qBlock.size(3);
  const int64_t kvH = kBlock.size(1), kn = kBlock.size(2), rep = H / kvH;
  at::Tensor qg = qBlock.reshape({b, kvH, rep * qn, D});
  at::Tensor scores = at::matmul(qg, kBlock.transpose(-1, -2)).mul_(s.scale).view({b, H, qn, kn});
  if (s.softcap <= 0) return scores;
  at::Tensor t = at::tanh(scores / s.softcap);
  if (capTanh) *capTanh = t;
  return t * s.softcap;
}

// As the eager decoder: the raw scores, masked scores set to finfo(dtype).min (what the eager
// "+ finfo.min" rounds to), softmax in float32.
BlockScores blockScores(const at::Tensor& qBlock, const at::Tensor& kBlock, const at::Tensor& allowed,
                        const AttentionSpec& s) {
  BlockScores out;
  at::Tensor scores = rawScores(qBlock, kBlock, s, &out.capTanh);
  scores.masked_fill_(allowed.logical_not().unsqueeze(1), maskedScore(scores.scalar_type()));
  out.probs = at::softmax(scores, -1, at::kFloat);
  return out;
}

at::Tensor forwardBlocks(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                         const AttentionSpec& spec, int64_t rows, const ProbsSink& sink, const ScoresSink& scoresSink) {
  const int64_t b = q.size(0), H = q.size(1), T = q.size(2), D = q.size(3), kvH = k.size(1), rep = H / kvH;
  at::Tensor out = at::empty({b, H, T, D}, q.options());
  for (int64_t q0 = 0; q0 < T; q0 += rows) {
    const int64_t qn = std::min(rows, T - q0);
    const Block bl = blockAt(mask, q0, qn, spec.window);
    const at::Tensor p = blockScores(q.narrow(2, q0, qn), k.narrow(2, bl.k0, bl.kn), bl.allowed, spec)
                             .probs.to(q.scalar_type()); // [b, H, qn, kn], cast before mixing v, as eager
    if (sink) { // the keys outside the block have probability 0 (a fully masked row keeps all T)
      at::Tensor full = p;
      if (bl.kn < T) {
        full = at::zeros({b, H, qn, T}, p.options());
        full.narrow(3, bl.k0, bl.kn).copy_(p);
      }
      sink(q0, full);
    }
    // The same arithmetic against every key (the block's own scores stop at its causal span): what
    // the softmax view shows as the row's scores, the mask not yet added.
    if (scoresSink) scoresSink(q0, rawScores(q.narrow(2, q0, qn), k, spec, nullptr));
    out.narrow(2, q0, qn).copy_(
        at::matmul(p.view({b, kvH, rep * qn, bl.kn}), v.narrow(2, bl.k0, bl.kn)).view({b, H, qn, D}));
  }
  return out;
}

struct AttentionGrads {
  at::Tensor dq, dk, dv;
};

// dV += P^T dO; dP = dO V^T; dS = P * (dP - rowsum(P * dP)) in float32 (the softmax backward), cast
// to the compute dtype; through the soft-cap (1 - tanh^2) and the scale; dQ = dS K; dK += dS^T Q.
// dS is not masked: as in the eager graph (scores + mask), a fully masked row's uniform weights pass
// the gradient on. dK and dV accumulate over the blocks in float32.
AttentionGrads backwardBlocks(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                              const AttentionSpec& spec, int64_t rows, const at::Tensor& dOut) {
  const int64_t b = q.size(0), H = q.size(1), T = q.size(2), D = q.size(3), kvH = k.size(1), rep = H / kvH;
  const at::ScalarType dt = q.scalar_type();
  at::Tensor dq = at::empty({b, H, T, D}, q.options());
  at::Tensor dk = at::zeros({b, kvH, T, D}, q.options().dtype(at::kFloat)), dv = at::zeros_like(dk);
  for (int64_t q0 = 0; q0 < T; q0 += rows) {
    const int64_t qn = std::min(rows, T - q0);
    const Block bl = blockAt(mask, q0, qn, spec.window);
    const at::Tensor qBlock = q.narrow(2, q0, qn), kBlock = k.narrow(2, bl.k0, bl.kn);
    const at::Tensor vBlock = v.narrow(2, bl.k0, bl.kn);
    const BlockScores sc = blockScores(qBlock, kBlock, bl.allowed, spec);
    const at::Tensor dog = dOut.narrow(2, q0, qn).reshape({b, kvH, rep * qn, D});
    dv.narrow(2, bl.k0, bl.kn).add_(at::matmul(sc.probs.to(dt).view({b, kvH, rep * qn, bl.kn}).transpose(-1, -2), dog));
    const at::Tensor dp = at::matmul(dog, vBlock.transpose(-1, -2)).view({b, H, qn, bl.kn}).to(at::kFloat);
    at::Tensor ds = (sc.probs * (dp - (sc.probs * dp).sum(-1, true))).to(dt);
    if (sc.capTanh.defined()) ds = ds * (sc.capTanh * sc.capTanh).neg_().add_(1.0);
    ds = ds.mul(spec.scale).view({b, kvH, rep * qn, bl.kn});
    dq.narrow(2, q0, qn).copy_(at::matmul(ds, kBlock).view({b, H, qn, D}));
    dk.narrow(2, bl.k0, bl.kn).add_(at::matmul(ds.transpose(-1, -2), qBlock.reshape({b, kvH, rep * qn, D})));
  }
  return {dq, dk.to(dt), dv.to(dt)};
}

// The gradient pass's attention: forward by blocks without a graph, saving q, k, v and the mask; the
// backward recomputes each block's probabilities (backwardBlocks).
struct ChunkedAttentionFunction : public torch::autograd::Function<ChunkedAttentionFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                            const at::Tensor& v, const at::Tensor& mask, double scale, double softcap, int64_t window,
                            int64_t rows) {
    ctx->save_for_backward({q, k, v, mask});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["softcap"] = softcap;
    ctx->saved_data["window"] = window;
    ctx->saved_data["rows"] = rows;
    at::NoGradGuard noGraph;
    return forwardBlocks(q, k, v, mask, AttentionSpec{scale, softcap, window}, rows, {}, {});
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list gradOut) {
    const auto saved = ctx->get_saved_variables();
    const AttentionSpec spec{ctx->saved_data["scale"].toDouble(), ctx->saved_data["softcap"].toDouble(),
                             ctx->saved_data["window"].toInt()};
    at::NoGradGuard noGraph;
    AttentionGrads g =
        backwardBlocks(saved[0], saved[1], saved[2], saved[3], spec, ctx->saved_data["rows"].toInt(), gradOut[0]);
    return {g.dq, g.dk, g.dv, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

} // namespace

at::Tensor chunkedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                            const AttentionSpec& spec, int64_t blockRows, const ProbsSink& sink,
                            const ScoresSink& scoresSink) {
  const int64_t rows = blockRows > 0 ? blockRows : attentionBlockRows(q.size(0), q.size(1), q.size(2));
  const bool graph = at::GradMode::is_enabled() && (q.requires_grad() || k.requires_grad() || v.requires_grad());
  if (!graph) return forwardBlocks(q, k, v, mask, spec, rows, sink, scoresSink);
  if (sink || scoresSink) throw std::logic_error("attention capture runs without gradients");
  return ChunkedAttentionFunction::apply(q, k, v, mask, spec.scale, spec.softcap, spec.window, rows);
}

namespace {

// How the fused call receives the mask (MASKSCOPE_FUSED_ATTENTION, read once; for checking the fused
// path against the eager one on a GPU, docs/cuda.md): "bool" (default) a boolean mask, true = attend;
// "additive" finfo(dtype).min where masked; "additive-plain" the same as a contiguous [b, 1, T, T]
// tensor; "off" never fused (the query-chunked eager path everywhere).
enum class FusedMode { Bool, Additive, AdditivePlain, Off };

FusedMode fusedMode() {
  static const FusedMode mode = [] {
    const char* e = std::getenv("MASKSCOPE_FUSED_ATTENTION");
    const std::string v = e ? e : "";
    if (v == "additive") return FusedMode::Additive;
    if (v == "additive-plain") return FusedMode::AdditivePlain;
    if (v == "off" || v == "0") return FusedMode::Off;
    return FusedMode::Bool;
  }();
  return mode;
}

// Row stride of a mask's storage: a multiple of 16 elements, so the fused kernels read it in place
// (the memory-efficient kernel copies a mask whose rows are not 16-aligned, at every layer).
int64_t alignedColumns(int64_t n) { return (n + 15) / 16 * 16; }

} // namespace

bool fusedAttentionUsable(const at::Device& device, const AttentionSpec& spec) {
#ifdef MASKSCOPE_FUSED_ATTENTION
  return device.is_cuda() && spec.softcap <= 0 && fusedMode() != FusedMode::Off;
#else
  (void)device;
  (void)spec;
  return false;
#endif
}

// The storage is [b, 1, T, C], C = alignedColumns(T + 1) >= T + 1: columns 0 .. T-1 are the mask,
// column T (bool mode) flags a query row that may attend no key at all (a left pad). Such a row is
// opened to every key in the mask (no kernel then returns NaN or zeros for it) and its output is
// replaced by the eager result: masked scores all equal finfo.min, so softmax is uniform over all T
// keys and the output is the mean of v.
at::Tensor fusedAttentionMask(const at::Tensor& mask, at::ScalarType dtype, int64_t window) {
  const int64_t b = mask.size(0), T = mask.size(1);
  const bool causalOnly = (window <= 0 || window >= T) && (mask != 0).all().item<bool>() &&
                          mask.eq(mask.narrow(1, 0, 1)).all().item<bool>();
  if (causalOnly) return at::Tensor();
  const FusedMode mode = fusedMode();
  if (mode == FusedMode::AdditivePlain) return additiveMask(mask, dtype, window);
  const at::Tensor allowed = allowedKeys(mask, 0, T, 0, T, window).unsqueeze(1); // [b, 1, T, T]
  if (mode == FusedMode::Additive) {
    at::Tensor store = at::zeros({b, 1, T, alignedColumns(T)}, mask.options().dtype(dtype));
    store.narrow(3, 0, T).masked_fill_(allowed.logical_not(), maskedScore(dtype));
    return store;
  }
  const at::Tensor none = allowed.logical_not().all(-1, /*keepdim=*/true); // [b, 1, T, 1]
  at::Tensor store = at::zeros({b, 1, T, alignedColumns(T + 1)}, mask.options().dtype(at::kBool));
  store.narrow(3, 0, T).copy_(allowed.logical_or(none));
  store.narrow(3, T, 1).copy_(none);
  return store;
}

namespace {

// The only LibTorch 2.x call of the engine (everything around it compiles with 1.13 too).
at::Tensor sdpa(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask, double scale) {
#ifdef MASKSCOPE_FUSED_ATTENTION
  if (!mask.defined()) return at::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true, scale);
  return at::scaled_dot_product_attention(q, k, v, mask, 0.0, /*is_causal=*/false, scale);
#else
  (void)q;
  (void)k;
  (void)v;
  (void)mask;
  (void)scale;
  throw std::logic_error("fused attention needs LibTorch 2.1 or later");
#endif
}

} // namespace

// K/V are repeated to every query head (transformers' repeat_kv) rather than passing enable_gqa, which
// the kernels that take a mask do not all support.
at::Tensor fusedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& addMask,
                          double scale) {
  const int64_t b = k.size(0), kvH = k.size(1), T = k.size(2), D = k.size(3), H = q.size(1), rep = H / kvH;
  auto toHeads = [&](const at::Tensor& x) { // [b, kvH, n, D] -> [b, H, n, D]
    const int64_t n = x.size(2);
    return rep == 1 ? x : x.unsqueeze(2).expand({b, kvH, rep, n, D}).reshape({b, H, n, D});
  };
  const at::Tensor kr = toHeads(k), vr = toHeads(v);
  if (!addMask.defined()) return sdpa(q, kr, vr, {}, scale);
  const at::Tensor m = addMask.size(3) == T ? addMask : addMask.narrow(3, 0, T);
  const at::Tensor out = sdpa(q, kr, vr, m, scale);
  if (addMask.scalar_type() != at::kBool) return out;
  const at::Tensor none = addMask.narrow(3, T, 1);                                        // [b, 1, T, 1]
  const at::Tensor uniform = toHeads(v.to(at::kFloat).mean(2, true)).to(v.scalar_type()); // [b, H, 1, D]
  return at::where(none, uniform, out);
}

std::string attentionPathNote(const at::Device& device, double attnSoftcap) {
#ifdef MASKSCOPE_FUSED_ATTENTION
  if (device.is_cuda() && attnSoftcap <= 0)
    return std::string("attention: fused scaled_dot_product_attention (LibTorch ") + TORCH_VERSION +
           "); eager, query-chunked where attention weights are captured";
  if (device.is_cuda())
    return "attention: eager, query-chunked (soft-capped scores are not expressible in scaled_dot_product_attention)";
  return std::string("attention: eager, query-chunked on the CPU (LibTorch ") + TORCH_VERSION + ")";
#else
  (void)device;
  (void)attnSoftcap;
  return std::string("attention: eager, query-chunked (LibTorch ") + TORCH_VERSION + ": no fused attention)";
#endif
}

} // namespace maskscope::engine
