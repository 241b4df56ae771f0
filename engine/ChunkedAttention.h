// The attention core (q, k, v, mask -> output) with memory linear in the sequence length: the scores
// exist one block of queries at a time, in the forward and (a custom autograd Function) in the
// backward; and, with LibTorch 2.x on CUDA, fused scaled_dot_product_attention. Shapes: b rows, T
// positions, H query heads, kvH key/value heads (H = kvH * rep, head h reads kv head h / rep), D head dim.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <string>

namespace maskscope::engine {

// How one layer's scores are formed: scores = (q k^T) * scale, soft-capped (Gemma 2: tanh(s / cap) *
// cap, before the mask), masked, softmax in float32. window > 0: a query sees only the `window` most
// recent keys, itself included.
struct AttentionSpec {
  double scale = 1.0;
  double softcap = 0.0; // 0 = none
  int64_t window = 0;   // 0 = the whole causal prefix
};

// Which keys k0 .. k0+kn each query q0 .. q0+qn may attend, as bool [b, qn, kn], from the [b, T]
// segment mask (ForwardEngine.h: 0 = pad, never a key; a query sees key k <= q when mask[k] != 0 and
// mask[q] == mask[k] or mask[q] == 0). The one rule behind every mask of the engine.
at::Tensor allowedKeys(const at::Tensor& mask, int64_t q0, int64_t qn, int64_t k0, int64_t kn, int64_t window = 0);

// The additive [b, 1, T, T] mask of allowedKeys: 0 where allowed, finfo(dtype).min elsewhere (not
// -inf, as transformers: a fully masked query row becomes uniform over all T keys instead of NaN).
at::Tensor additiveMask(const at::Tensor& mask, at::ScalarType dtype, int64_t window = 0);

// finfo(dtype).min: what a masked score becomes.
double maskedScore(at::ScalarType dtype);

// Query rows per block so that one block's float32 scores [b, H, rows, T] stay near 32 MiB.
int64_t attentionBlockRows(int64_t b, int64_t H, int64_t T);

// Receives the probabilities [b, H, qn, T] (compute dtype) of query rows q0 .. q0+qn (attention capture).
using ProbsSink = std::function<void(int64_t q0, const at::Tensor& probs)>;
// Receives the pre-softmax scores [b, H, qn, T] (compute dtype) of query rows q0 .. q0+qn against every
// key: (q k^T) * scale, soft-capped when the layer caps, before the mask is added (so a future or pad
// key keeps its real score; the probabilities are the softmax of these with the mask added).
using ScoresSink = std::function<void(int64_t q0, const at::Tensor& scores)>;

// Attention output [b, H, T, D] of q [b, H, T, D], k and v [b, kvH, T, D] under the [b, T] segment
// mask, numerically the eager computation (materialised scores, softmax in float32, probabilities
// cast to the compute dtype before mixing v), a block of `blockRows` query rows at a time (0 =
// attentionBlockRows). With gradients on for q, k or v it runs as an autograd Function that keeps only
// q, k, v and recomputes each block's probabilities in the backward, so no [T, T] tensor outlives a
// block. sink (no gradients only) gets every block's probabilities, scoresSink its unmasked scores.
at::Tensor chunkedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                            const AttentionSpec& spec, int64_t blockRows = 0, const ProbsSink& sink = {},
                            const ScoresSink& scoresSink = {});

// True where this build has fused attention (LibTorch >= 2.1: at::scaled_dot_product_attention with
// a scale argument) and it runs here: on CUDA, for scores without soft-capping. On the CPU the
// chunked path runs instead, since the fused call needs the whole [b, 1, T, T] mask.
bool fusedAttentionUsable(const at::Device& device, const AttentionSpec& spec);

// The mask the fused path reads, shared by the layers of one forward: [b, 1, T, C] storage with rows
// 16-aligned (C >= T; the mask is its first T columns). Undefined when every query sees exactly its
// causal prefix (one segment per row, no padding, no window): the fused call then runs with is_causal
// and no mask. MASKSCOPE_FUSED_ATTENTION picks its form (ChunkedAttention.cpp): boolean by default,
// with column T flagging a query row that may attend no key (its output is set to the eager result).
at::Tensor fusedAttentionMask(const at::Tensor& mask, at::ScalarType dtype, int64_t window);

// The longest row the fused path takes (pytorch/pytorch issue 162588: wrong results beyond 2^16).
inline constexpr int64_t kMaxFusedPositions = int64_t(1) << 16;

// Fused attention (fusedAttentionUsable must hold): q [b, H, T, D], k and v [b, kvH, T, D] -> [b, H, T, D].
at::Tensor fusedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& addMask,
                          double scale);

// For ModelInfo::notes: which attention path a model on `device` runs in this build.
std::string attentionPathNote(const at::Device& device, double attnSoftcap);

} // namespace maskscope::engine
