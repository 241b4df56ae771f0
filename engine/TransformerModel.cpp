// Weights loading and the eager decoder forward (see TransformerModel.h). Shapes use
// b = rows, T = length, H = heads, kvH = key/value heads, D = head dim, n_rep = H / kvH.
#include "engine/TransformerModel.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace maskscope::engine {
namespace {

// Drops the mapped pages of a tensor that was copied out (BF16/F16 widened on the CPU). They are
// clean pages of a private file mapping, so the kernel frees them now (and would re-read them from
// the file if touched) instead of keeping them resident until the mapping closes: loading peaks at
// the widened weights plus one tensor, not plus the whole file. Only whole pages inside the tensor.
void releaseMappedPages(const void* ptr, size_t bytes) {
  const auto page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t b = (uintptr_t(ptr) + page - 1) / page * page, e = (uintptr_t(ptr) + bytes) / page * page;
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
}

std::string shapeText(at::IntArrayRef s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

struct WeightSource {
  const std::vector<SafetensorsView>& files;
  at::Device device;
  bool copy;
  std::string* dtypeSeen;
  bool* allMapped = nullptr; // cleared when a narrow tensor kept in its stored dtype is not on a file mapping

  // widen: BF16/F16 on the CPU become float32 now (embeddings, final norm, head). Otherwise (decoder
  // layers) they stay in the stored dtype and TransformerModel::layerForCompute widens one layer at a
  // time during the forward: the resident weights are the file, not twice the file.
  at::Tensor get(const std::string& name, std::vector<int64_t> shape, bool widen = true) const {
    for (const SafetensorsView& f : files) {
      auto it = f.tensors.find(name);
      if (it == f.tensors.end()) continue;
      const TensorEntry& e = it->second;
      if (e.shape != shape)
        throw std::runtime_error(f.fileName + ": tensor '" + name + "' has shape " + shapeText(e.shape) +
                                 ", expected " + shapeText(shape));
      at::ScalarType st;
      if (e.dtype == "F32")
        st = at::kFloat;
      else if (e.dtype == "BF16")
        st = at::kBFloat16;
      else if (e.dtype == "F16")
        st = at::kHalf;
      else
        throw std::runtime_error(f.fileName + ": tensor '" + name + "' has dtype " + e.dtype +
                                 " (F32, BF16 or F16 expected)");
      if (dtypeSeen->empty() || *dtypeSeen == "F32") *dtypeSeen = e.dtype;
      void* ptr = const_cast<uint8_t*>(f.data + e.begin);
      std::shared_ptr<void> keep = f.keepAlive;
      at::Tensor t = at::from_blob(
          ptr, shape, [keep](void*) {}, at::TensorOptions().dtype(st));
      const bool aligned = reinterpret_cast<uintptr_t>(ptr) % at::elementSize(st) == 0;
      // A NaN or Inf weight makes every loss NaN (reported as n/a, exit 0): refuse the file instead,
      // naming the tensor. One pass over the mapped data, before any copy.
      if (!at::isfinite(t).all().item<bool>())
        throw std::runtime_error(f.fileName + ": tensor '" + name + "' holds NaN or Inf values");
      if (device.is_cuda()) return t.to(device); // keeps the stored dtype on the GPU
      if (st != at::kFloat && widen) {           // CPU computes in float32: one widened copy, the mapped bytes released
        at::Tensor wide = t.to(at::kFloat);
        if (f.keepAlive) releaseMappedPages(ptr, size_t(t.numel()) * at::elementSize(st));
        return wide;
      }
      if (copy || !aligned || !f.keepAlive) {
        if (st != at::kFloat && allMapped) *allMapped = false;
        return t.clone();
      }
      // Straight from the mapping, no copy. A narrow layer tensor was just read whole by the finite
      // check: drop those pages again until its layer runs.
      if (st != at::kFloat) releaseMappedPages(ptr, size_t(t.numel()) * at::elementSize(st));
      return t;
    }
    throw std::runtime_error("model weights: tensor '" + name + "' is missing (expected shape " + shapeText(shape) +
                             ")");
  }
};

at::Tensor rotateHalf(const at::Tensor& x) {
  int64_t half = x.size(-1) / 2;
  return at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

// inv_freq as transformers' rope init functions compute it (default, linear, llama3).
at::Tensor inverseFrequencies(const RopeConfig& r, int64_t D) {
  at::Tensor inv = 1.0 / at::pow(r.theta, at::arange(0, D, 2, at::kLong).to(at::kFloat) / double(D));
  if (r.scaling == "linear") return inv / r.factor;
  if (r.scaling == "llama3") {
    const double old = double(r.originalMaxPositions);
    const double lowWave = old / r.lowFreqFactor, highWave = old / r.highFreqFactor;
    at::Tensor wave = 2 * M_PI / inv;
    at::Tensor scaled = at::where(wave > lowWave, inv / r.factor, inv);
    at::Tensor smooth = (old / wave - r.lowFreqFactor) / (r.highFreqFactor - r.lowFreqFactor);
    at::Tensor smoothed = (1 - smooth) * scaled / r.factor + smooth * scaled;
    at::Tensor medium = (wave >= highWave).logical_and(wave <= lowWave);
    return at::where(medium, smoothed, scaled);
  }
  return inv;
}

// x @ w^T for a weight stored narrower than x (a BF16 layer on the CPU) while gradients are on:
// the float32 copy of w lives only inside forward and backward, so the autograd graph keeps the
// stored tensor (half the bytes) instead of a widened copy of every layer's matrices.
struct WidenOnUseLinear : public torch::autograd::Function<WidenOnUseLinear> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& w) {
    ctx->save_for_backward({x, w});
    return at::linear(x, w.to(x.scalar_type()));
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list gradOut) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &w = saved[1], &g = gradOut[0]; // x [..., in], w [out, in], g [..., out]
    at::Tensor gx = at::matmul(g, w.to(x.scalar_type()));
    at::Tensor gw = at::matmul(g.reshape({-1, g.size(-1)}).t(), x.reshape({-1, x.size(-1)})).to(w.scalar_type());
    return {gx, gw};
  }
};

at::Tensor project(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b = {}) {
  if (w.scalar_type() == x.scalar_type()) return b.defined() ? at::linear(x, w, b) : at::linear(x, w);
  at::Tensor y = WidenOnUseLinear::apply(x, w);
  return b.defined() ? y + b : y;
}

} // namespace

bool isOutOfMemory(const std::exception& e) { return std::string(e.what()).find("out of memory") != std::string::npos; }

std::vector<at::Tensor*> LayerWeights::all() {
  return {&inputNorm, &postNorm, &preFfnNorm, &postFfnNorm, &qNorm, &kNorm, &q,  &k,    &v,     &o,
          &qkv,       &qBias,    &kBias,      &vBias,       &oBias, &gate,  &up, &down, &gateUp};
}

namespace {

// The weights of one layer under transformers' names; `get(name, shape)` supplies each tensor.
template <typename Get> LayerWeights layerWeights(const ModelConfig& c, const std::string& p, Get&& get) {
  const int64_t Hd = c.hiddenSize, I = c.intermediateSize;
  const int64_t qDim = c.heads * c.headDim, kvDim = c.kvHeads * c.headDim;
  LayerWeights l;
  l.inputNorm = get(p + "input_layernorm.weight", {Hd});
  l.postNorm = get(p + "post_attention_layernorm.weight", {Hd});
  if (c.sandwichNorms) {
    l.preFfnNorm = get(p + "pre_feedforward_layernorm.weight", {Hd});
    l.postFfnNorm = get(p + "post_feedforward_layernorm.weight", {Hd});
  }
  if (c.qkNorm) {
    l.qNorm = get(p + "self_attn.q_norm.weight", {c.headDim});
    l.kNorm = get(p + "self_attn.k_norm.weight", {c.headDim});
  }
  if (c.fusedProjections) {
    l.qkv = get(p + "self_attn.qkv_proj.weight", {qDim + 2 * kvDim, Hd});
    l.gateUp = get(p + "mlp.gate_up_proj.weight", {2 * I, Hd});
  } else {
    l.q = get(p + "self_attn.q_proj.weight", {qDim, Hd});
    l.k = get(p + "self_attn.k_proj.weight", {kvDim, Hd});
    l.v = get(p + "self_attn.v_proj.weight", {kvDim, Hd});
    l.gate = get(p + "mlp.gate_proj.weight", {I, Hd});
    l.up = get(p + "mlp.up_proj.weight", {I, Hd});
  }
  l.o = get(p + "self_attn.o_proj.weight", {Hd, qDim});
  if (c.qkvBias) {
    l.qBias = get(p + "self_attn.q_proj.bias", {qDim});
    l.kBias = get(p + "self_attn.k_proj.bias", {kvDim});
    l.vBias = get(p + "self_attn.v_proj.bias", {kvDim});
  }
  if (c.oBias) l.oBias = get(p + "self_attn.o_proj.bias", {Hd});
  l.down = get(p + "mlp.down_proj.weight", {Hd, I});
  return l;
}

} // namespace

TransformerModel TransformerModel::fromSafetensors(const ModelConfig& c, const std::vector<SafetensorsView>& files,
                                                   at::Device device, bool copyWeights) {
  TransformerModel m;
  m.config = c;
  m.device = device;
  std::string dtypeSeen;
  bool allMapped = true;
  WeightSource w{files, device, copyWeights, &dtypeSeen, &allMapped};
  auto get = [&](const std::string& name, std::vector<int64_t> shape) {
    return w.get(name, std::move(shape), /*widen=*/false);
  };
  const int64_t Hd = c.hiddenSize, V = c.vocabSize;
  m.embed = w.get("model.embed_tokens.weight", {V, Hd});
  m.finalNorm = w.get("model.norm.weight", {Hd});
  for (int64_t i = 0; i < c.layers; ++i)
    m.layers.push_back(layerWeights(c, "model.layers." + std::to_string(i) + ".", get));
  m.lmHead = c.tieWordEmbeddings ? m.embed : w.get("lm_head.weight", {V, Hd});
  m.weightDtype = dtypeSeen.empty() ? "F32" : dtypeSeen;
  m.dtype = m.embed.scalar_type();
  m.layersOnMapping = allMapped;
  if (device.is_cuda()) m.moveTo(device, m.dtype); // one compute dtype even when files mix them
  return m;
}

TransformerModel TransformerModel::random(const ModelConfig& c, uint64_t seed, at::Device device) {
  at::manual_seed(seed);
  TransformerModel m;
  m.config = c;
  m.weightDtype = "random";
  auto opts = at::TensorOptions().dtype(at::kFloat);
  // Norm weights at their identity: 1 for w * x, 0 for Gemma's (1 + w) * x; matrices small random.
  auto get = [&](const std::string& name, std::vector<int64_t> s) {
    const bool isNorm = name.find("norm.weight") != std::string::npos;
    if (!isNorm) return (at::randn(s, opts) * 0.02).to(device);
    return (c.gemmaNorm ? at::zeros(s, opts) : at::ones(s, opts)).to(device);
  };
  m.embed = get("model.embed_tokens.weight", {c.vocabSize, c.hiddenSize});
  m.finalNorm = get("model.norm.weight", {c.hiddenSize});
  for (int64_t i = 0; i < c.layers; ++i)
    m.layers.push_back(layerWeights(c, "model.layers." + std::to_string(i) + ".", get));
  m.lmHead = c.tieWordEmbeddings ? m.embed : get("lm_head.weight", {c.vocabSize, c.hiddenSize});
  m.device = device;
  return m;
}

void TransformerModel::moveTo(at::Device d, at::ScalarType t) {
  c10::InferenceMode normal(false); // weights must stay usable for the gradient pass
  // No graph from the copies back to the old weights: inside the gradient pass (weights requiring
  // grad) a recorded copy would be a non-leaf, and the gradients would flow to the old device.
  at::NoGradGuard noGraph;
  auto mv = [&](at::Tensor& x) {
    if (!x.defined()) return;
    const bool trainable = x.requires_grad();
    x = x.to(d, t);
    if (trainable && !x.requires_grad()) x.requires_grad_(true);
  };
  const bool tied = lmHead.is_same(embed);
  mv(embed);
  mv(finalNorm);
  if (tied)
    lmHead = embed;
  else
    mv(lmHead);
  for (LayerWeights& l : layers)
    for (at::Tensor* x : l.all()) mv(*x);
  device = d;
  dtype = t;
  layersOnMapping = false; // copies now (or, when nothing changed, pages that are no longer released)
}

void TransformerModel::setRequiresGrad(bool on) {
  auto set = [&](at::Tensor& x) {
    if (!x.defined()) return;
    if (!x.is_leaf()) x = x.detach();
    x.requires_grad_(on);
  };
  const bool tied = lmHead.is_same(embed);
  set(embed);
  set(finalNorm);
  if (tied)
    lmHead = embed;
  else
    set(lmHead);
  for (LayerWeights& l : layers)
    for (at::Tensor* x : l.all()) set(*x);
}

std::vector<at::Tensor> TransformerModel::parameters() const {
  std::vector<at::Tensor> p{embed, finalNorm};
  if (!lmHead.is_same(embed)) p.push_back(lmHead);
  for (const LayerWeights& l : layers)
    for (at::Tensor* x : const_cast<LayerWeights&>(l).all())
      if (x->defined()) p.push_back(*x);
  return p;
}

int64_t TransformerModel::parameterCount() const {
  int64_t n = 0;
  for (const at::Tensor& t : parameters()) n += t.numel();
  return n;
}

LayerWeights TransformerModel::widenForCompute(LayerWeights w, bool* widened) const {
  // With gradients on, the matrices stay narrow: project() widens them inside its own forward and
  // backward (WidenOnUseLinear), so the graph does not hold a widened copy of every layer.
  const bool keepMatrices = at::GradMode::is_enabled();
  const std::vector<at::Tensor*> matrices{&w.q, &w.k, &w.v, &w.o, &w.qkv, &w.gate, &w.up, &w.down, &w.gateUp};
  for (at::Tensor* x : w.all())
    if (x->defined() && x->scalar_type() != dtype &&
        !(keepMatrices && std::find(matrices.begin(), matrices.end(), x) != matrices.end())) {
      *x = x->to(dtype);
      if (widened) *widened = true;
    }
  return w;
}

LayerWeights TransformerModel::layerForCompute(size_t li) const {
  bool widened = false;
  LayerWeights w = widenForCompute(layers[li], &widened);
  // The stored tensors were read whole just now: their mapped pages go back to the page cache, so
  // at most one layer's file bytes stay resident beside its widened copy.
  if (widened && layersOnMapping && !at::GradMode::is_enabled())
    for (at::Tensor* x : const_cast<LayerWeights&>(layers[li]).all())
      if (x->defined() && x->scalar_type() != dtype) releaseMappedPages(x->data_ptr(), x->nbytes());
  return w;
}

// Llama-style RMSNorm: w * (x_f32 * rsqrt(mean(x^2) + eps)).to(dtype). Gemma: the whole product in
// float32 with (1 + w), then cast (Gemma{2,3}RMSNorm).
at::Tensor TransformerModel::norm(const at::Tensor& x, const at::Tensor& weight) const {
  at::Tensor xf = x.to(at::kFloat);
  xf = xf * at::rsqrt(xf.pow(2).mean(-1, true) + config.rmsNormEps);
  if (config.gemmaNorm) return (xf * (1.0 + weight.to(at::kFloat))).to(x.scalar_type());
  return weight * xf.to(x.scalar_type());
}

// RoPE: freqs[b, T, D/2] = positions x inv_freq in float32, emb = cat(freqs, freqs).
TransformerModel::Rope TransformerModel::rope(const RopeConfig& r, const at::Tensor& positions) const {
  at::Tensor inv = inverseFrequencies(r, config.headDim).to(positions.device());
  at::Tensor freqs = positions.to(at::kFloat).unsqueeze(-1) * inv; // [b, T, D/2]
  at::Tensor emb = at::cat({freqs, freqs}, -1);
  return {emb.cos().to(dtype).unsqueeze(1), emb.sin().to(dtype).unsqueeze(1)}; // [b, 1, T, D]
}

// One attention block on normed input x [b, T, hidden] -> [b, T, hidden] (after o_proj). The core
// runs fused (LibTorch 2.x on CUDA) unless this layer's probabilities are captured or the scores are
// soft-capped; else query-chunked, numerically the eager computation (ChunkedAttention.h).
at::Tensor TransformerModel::attention(size_t li, const LayerWeights& l, const at::Tensor& x, const Rope& r,
                                       const Masks& masks, bool sliding, AttentionKeep* keep) const {
  const ModelConfig& c = config;
  const int64_t b = x.size(0), T = x.size(1), H = c.heads, kvH = c.kvHeads, D = c.headDim;
  at::Tensor q, k, v;
  if (l.qkv.defined()) { // Phi-3: one projection, split [H*D | kvH*D | kvH*D]
    at::Tensor all = project(x, l.qkv);
    q = all.narrow(-1, 0, H * D);
    k = all.narrow(-1, H * D, kvH * D);
    v = all.narrow(-1, H * D + kvH * D, kvH * D);
  } else {
    q = project(x, l.q, l.qBias);
    k = project(x, l.k, l.kBias);
    v = project(x, l.v, l.vBias);
  }
  q = q.reshape({b, T, H, D});
  k = k.reshape({b, T, kvH, D});
  v = v.reshape({b, T, kvH, D}).transpose(1, 2); // [b,kvH,T,D]
  if (c.qkNorm) {                                // RMSNorm over head_dim, before RoPE
    q = norm(q, l.qNorm);
    k = norm(k, l.kNorm);
  }
  q = q.transpose(1, 2); // [b,H,T,D]
  k = k.transpose(1, 2); // [b,kvH,T,D]
  q = q * r.cos + rotateHalf(q) * r.sin;
  k = k * r.cos + rotateHalf(k) * r.sin;
  const bool capture = keep && std::find(keep->layers.begin(), keep->layers.end(), int(li)) != keep->layers.end();
  at::Tensor out; // [b, H, T, D]
  if (masks.fused && !capture) {
    out = fusedAttention(q, k, v, sliding ? masks.fusedSliding : masks.fusedFull, c.attentionScale);
  } else {
    ProbsSink sink;
    ScoresSink scoresSink;
    at::Tensor kept, keptScores, heads; // [b, H_kept, T, T] float32 on the CPU; the kept head indices
    if (capture) {
      if (!keep->heads.empty())
        heads = at::tensor(std::vector<int64_t>(keep->heads.begin(), keep->heads.end()), at::kLong).to(q.device());
      const std::vector<int64_t> shape{b, heads.defined() ? heads.size(0) : H, T, T};
      kept = at::empty(shape, at::TensorOptions().dtype(at::kFloat));
      auto into = [&heads](at::Tensor& dst, int64_t q0, const at::Tensor& x) { // x [b, H, qn, T]
        const at::Tensor sel = heads.defined() ? x.index_select(1, heads) : x;
        dst.narrow(2, q0, x.size(2)).copy_(sel.to(at::kCPU, at::kFloat));
      };
      sink = [&](int64_t q0, const at::Tensor& p) { into(kept, q0, p); };
      if (keep->scores) {
        keptScores = at::empty(shape, at::TensorOptions().dtype(at::kFloat));
        scoresSink = [&](int64_t q0, const at::Tensor& s) { into(keptScores, q0, s); };
      }
    }
    const AttentionSpec spec{c.attentionScale, c.attnSoftcap, sliding ? c.slidingWindow : 0};
    out = chunkedAttention(q, k, v, masks.segments, spec, 0, sink, scoresSink);
    if (capture) keep->kept[int(li)] = kept;
    if (capture && keptScores.defined()) keep->keptScores[int(li)] = keptScores;
  }
  return project(out.transpose(1, 2).reshape({b, T, H * D}), l.o, l.oBias);
}

// down(act(gate(x)) * up(x)); Phi-3 computes gate and up as one projection, gate rows first.
at::Tensor TransformerModel::mlp(const LayerWeights& l, const at::Tensor& x) const {
  at::Tensor gate, up;
  if (l.gateUp.defined()) {
    at::Tensor both = project(x, l.gateUp);
    const int64_t I = config.intermediateSize;
    gate = both.narrow(-1, 0, I);
    up = both.narrow(-1, I, I);
  } else {
    gate = project(x, l.gate);
    up = project(x, l.up);
  }
  at::Tensor act = config.activation == Activation::Silu       ? at::silu(gate)
                   : config.activation == Activation::GeluTanh ? at::gelu(gate, "tanh")
                                                               : at::gelu(gate);
  return project(act * up, l.down);
}

at::Tensor TransformerModel::layer(size_t li, const LayerWeights& l, const at::Tensor& h, const Rope& r,
                                   const Masks& masks, bool sliding, AttentionKeep* keep) const {
  const at::Tensor a = attention(li, l, norm(h, l.inputNorm), r, masks, sliding, keep);
  if (config.sandwichNorms) { // Gemma: norm after attention, and around the feed-forward
    const at::Tensor mid = h + norm(a, l.postNorm);
    return mid + norm(mlp(l, norm(mid, l.preFfnNorm)), l.postFfnNorm);
  }
  const at::Tensor mid = h + a;
  return mid + mlp(l, norm(mid, l.postNorm));
}

namespace {

void putTensor(torch::autograd::AutogradContext* ctx, const std::string& key, const at::Tensor& t) {
  if (t.defined()) ctx->saved_data[key] = t;
}
at::Tensor takeTensor(torch::autograd::AutogradContext* ctx, const std::string& key) {
  auto it = ctx->saved_data.find(key);
  return it == ctx->saved_data.end() ? at::Tensor() : it->second.toTensor();
}

} // namespace

// A decoder layer whose forward keeps no graph, only its input h and the layer's weights (alive
// anyway); the backward runs the layer again from them with its graph and takes the vector-Jacobian
// product there (activation checkpointing). The rope and mask tensors ride in saved_data; the model
// outlives the backward (it is the TorchModel's, and the pass ends before anything replaces it).
struct LayerCheckpoint : public torch::autograd::Function<LayerCheckpoint> {
  static at::Tensor run(const TransformerModel& m, size_t li, const at::Tensor& h, const TransformerModel::Rope& r,
                        const TransformerModel::Masks& masks, bool sliding) {
    std::vector<at::Tensor> weights;
    int64_t slots = 0; // which LayerWeights::all() slots are defined (the weights' order)
    const std::vector<at::Tensor*> all = const_cast<LayerWeights&>(m.layers[li]).all();
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i]->defined()) {
        weights.push_back(*all[i]);
        slots |= int64_t(1) << i;
      }
    return apply(h, at::TensorList(weights), &m, int64_t(li), slots, &r, &masks, sliding);
  }
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& h, at::TensorList weights,
                            const TransformerModel* m, int64_t li, int64_t slots, const TransformerModel::Rope* r,
                            const TransformerModel::Masks* masks, bool sliding) {
    std::vector<at::Tensor> keep{h};
    keep.insert(keep.end(), weights.begin(), weights.end());
    ctx->save_for_backward(keep);
    ctx->saved_data["model"] = int64_t(reinterpret_cast<intptr_t>(m));
    ctx->saved_data["layer"] = li;
    ctx->saved_data["slots"] = slots;
    ctx->saved_data["sliding"] = sliding;
    ctx->saved_data["fused"] = masks->fused;
    putTensor(ctx, "cos", r->cos);
    putTensor(ctx, "sin", r->sin);
    putTensor(ctx, "segments", masks->segments);
    putTensor(ctx, "fusedFull", masks->fusedFull);
    putTensor(ctx, "fusedSliding", masks->fusedSliding);
    at::NoGradGuard noGraph;
    return m->layer(size_t(li), m->layerForCompute(size_t(li)), h, *r, *masks, sliding, nullptr);
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list gradOut) {
    const auto saved = ctx->get_saved_variables(); // h, then the defined weight slots in order
    const auto* m = reinterpret_cast<const TransformerModel*>(intptr_t(ctx->saved_data["model"].toInt()));
    const int64_t slots = ctx->saved_data["slots"].toInt();
    at::AutoGradMode graph(true);
    std::vector<at::Tensor> fresh; // saved[i] detached, requiring grad where the input did
    for (const at::Tensor& t : saved) fresh.push_back(t.detach().requires_grad_(t.requires_grad()));
    LayerWeights w;
    const std::vector<at::Tensor*> all = w.all();
    for (size_t i = 0, j = 1; i < all.size(); ++i)
      if ((slots >> i) & 1) *all[i] = fresh[j++];
    const TransformerModel::Rope r{takeTensor(ctx, "cos"), takeTensor(ctx, "sin")};
    const TransformerModel::Masks masks{takeTensor(ctx, "segments"), ctx->saved_data["fused"].toBool(),
                                        takeTensor(ctx, "fusedFull"), takeTensor(ctx, "fusedSliding")};
    const at::Tensor out = m->layer(size_t(ctx->saved_data["layer"].toInt()), m->widenForCompute(w), fresh[0], r, masks,
                                    ctx->saved_data["sliding"].toBool(), nullptr);
    std::vector<at::Tensor> wrt;
    std::vector<size_t> input; // wrt[k] is forward's input input[k]
    for (size_t i = 0; i < fresh.size(); ++i)
      if (fresh[i].requires_grad()) {
        wrt.push_back(fresh[i]);
        input.push_back(i);
      }
    // One gradient per input of forward: h, each weight, then the six non-tensor arguments.
    torch::autograd::tensor_list grads(saved.size() + 6);
    if (wrt.empty()) return grads;
    const auto g = torch::autograd::grad({out}, wrt, {gradOut[0]}, false, false, /*allow_unused=*/true);
    for (size_t k = 0; k < wrt.size(); ++k) grads[input[k]] = g[k];
    return grads;
  }
};

at::Tensor TransformerModel::hidden(const at::Tensor& ids, const at::Tensor& mask, const at::Tensor& positions,
                                    AttentionKeep* keep, const std::function<void(size_t)>& afterLayer) const {
  const ModelConfig& c = config;
  at::Tensor h = at::embedding(embed, ids); // [b, T, hidden]
  // Gemma: embeddings x sqrt(hidden), the factor rounded to the compute dtype first.
  if (c.gemmaNorm) h = h * at::scalar_tensor(std::sqrt(double(c.hiddenSize)), h.options());
  const Rope full = rope(c.rope, positions);
  const Rope local = c.hasLocalRope ? rope(c.localRope, positions) : full;
  const bool anySliding = std::find(c.slidingLayers.begin(), c.slidingLayers.end(), true) != c.slidingLayers.end();
  // Not fused past 65536 positions: the memory-efficient kernel is silently wrong there (pytorch/pytorch
  // issue 162588), so such rows take the query-chunked path.
  const bool fuse = fusedAttentionUsable(device, AttentionSpec{c.attentionScale, c.attnSoftcap, 0}) &&
                    mask.size(1) <= kMaxFusedPositions;
  Masks masks{mask, fuse, {}, {}};
  if (masks.fused) {
    masks.fusedFull = fusedAttentionMask(mask, dtype, 0); // [b,1,T,T] or undefined (causal only)
    masks.fusedSliding = anySliding ? fusedAttentionMask(mask, dtype, c.slidingWindow) : masks.fusedFull;
  }
  // Layers recomputed in the backward (recomputeLayers): only with gradients, on the CPU, no capture.
  const bool recompute = recomputeLayers && !device.is_cuda() && !keep && at::GradMode::is_enabled();
  for (size_t li = 0; li < layers.size(); ++li) {
    const bool sliding = li < c.slidingLayers.size() && c.slidingLayers[li];
    const Rope& r = sliding ? local : full;
    if (recompute)
      h = LayerCheckpoint::run(*this, li, h, r, masks, sliding);
    else // widened for this layer only when stored narrower
      h = layer(li, layerForCompute(li), h, r, masks, sliding, keep);
    if (afterLayer) afterLayer(li);
  }
  return norm(h, finalNorm);
}

at::Tensor TransformerModel::logits(const at::Tensor& h) const {
  at::Tensor l = at::linear(h, lmHead);
  if (config.finalSoftcap > 0) l = at::tanh(l / config.finalSoftcap) * config.finalSoftcap;
  return l.to(at::kFloat);
}

} // namespace maskscope::engine
