// Weights loading and the eager decoder forward (see TransformerModel.h). Shapes use
// b = rows, T = length, H = heads, kvH = key/value heads, D = head dim, n_rep = H / kvH.
#include "engine/TransformerModel.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace maskscope::engine {
namespace {

std::string shapeText(at::IntArrayRef s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

struct WeightSource {
  const std::vector<SafetensorsFile>& files;
  at::Device device;
  bool copy;
  std::string* dtypeSeen;

  at::Tensor get(const std::string& name, std::vector<int64_t> shape, bool optional = false) const {
    for (const SafetensorsFile& f : files) {
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
      if (device.is_cuda()) return t.to(device);     // keeps the stored dtype on the GPU
      if (st != at::kFloat) return t.to(at::kFloat); // CPU computes in float32: one widened copy
      if (copy || !aligned) return t.clone();
      return t; // float32 straight from the mapping: no copy
    }
    if (optional) return {};
    throw std::runtime_error("model weights: tensor '" + name + "' is missing (expected shape " + shapeText(shape) +
                             ")");
  }
};

at::Tensor rotateHalf(const at::Tensor& x) {
  int64_t half = x.size(-1) / 2;
  return at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  at::Tensor xf = x.to(at::kFloat);
  at::Tensor var = xf.pow(2).mean(-1, true);
  xf = xf * at::rsqrt(var + eps);
  return weight * xf.to(x.scalar_type());
}

// inv_freq as transformers' rope init functions compute it (default, linear, llama3).
at::Tensor inverseFrequencies(const ModelConfig& c) {
  const int64_t D = c.headDim;
  at::Tensor inv = 1.0 / at::pow(c.ropeTheta, at::arange(0, D, 2, at::kLong).to(at::kFloat) / double(D));
  if (c.ropeScaling == "linear") return inv / c.ropeFactor;
  if (c.ropeScaling == "llama3") {
    const double old = double(c.originalMaxPositions);
    const double lowWave = old / c.lowFreqFactor, highWave = old / c.highFreqFactor;
    at::Tensor wave = 2 * M_PI / inv;
    at::Tensor scaled = at::where(wave > lowWave, inv / c.ropeFactor, inv);
    at::Tensor smooth = (old / wave - c.lowFreqFactor) / (c.highFreqFactor - c.lowFreqFactor);
    at::Tensor smoothed = (1 - smooth) * scaled / c.ropeFactor + smooth * scaled;
    at::Tensor medium = (wave >= highWave).logical_and(wave <= lowWave);
    return at::where(medium, smoothed, scaled);
  }
  return inv;
}

at::Tensor linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return b.defined() ? at::linear(x, w, b) : at::linear(x, w);
}

} // namespace

bool isOutOfMemory(const std::exception& e) { return std::string(e.what()).find("out of memory") != std::string::npos; }

at::Tensor additiveMask(const at::Tensor& mask, at::ScalarType dtype) {
  const int64_t T = mask.size(1);
  at::Tensor mq = mask.unsqueeze(2), mk = mask.unsqueeze(1);                    // [b,T,1], [b,1,T]
  at::Tensor causal = at::ones({T, T}, mask.options().dtype(at::kBool)).tril(); // k <= q
  at::Tensor allowed = (mk != 0).logical_and(mq.eq(mk).logical_or(mq == 0)).logical_and(causal);
  double minValue = dtype == at::kBFloat16 ? -3.3895313892515355e38
                    : dtype == at::kHalf   ? -65504.0
                                           : double(std::numeric_limits<float>::lowest());
  at::Tensor add = at::zeros(allowed.sizes(), mask.options().dtype(dtype));
  add.masked_fill_(allowed.logical_not(), minValue);
  return add.unsqueeze(1); // [b, 1, T, T]
}

TransformerModel TransformerModel::fromSafetensors(const ModelConfig& c, const std::vector<SafetensorsFile>& files,
                                                   at::Device device, bool copyWeights) {
  TransformerModel m;
  m.config = c;
  m.device = device;
  std::string dtypeSeen;
  WeightSource w{files, device, copyWeights, &dtypeSeen};
  const int64_t Hd = c.hiddenSize, V = c.vocabSize, I = c.intermediateSize;
  const int64_t qDim = c.heads * c.headDim, kvDim = c.kvHeads * c.headDim;
  m.embed = w.get("model.embed_tokens.weight", {V, Hd});
  m.finalNorm = w.get("model.norm.weight", {Hd});
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    LayerWeights l;
    l.inputNorm = w.get(p + "input_layernorm.weight", {Hd});
    l.postNorm = w.get(p + "post_attention_layernorm.weight", {Hd});
    l.q = w.get(p + "self_attn.q_proj.weight", {qDim, Hd});
    l.k = w.get(p + "self_attn.k_proj.weight", {kvDim, Hd});
    l.v = w.get(p + "self_attn.v_proj.weight", {kvDim, Hd});
    l.o = w.get(p + "self_attn.o_proj.weight", {Hd, qDim});
    if (c.qkvBias) {
      l.qBias = w.get(p + "self_attn.q_proj.bias", {qDim});
      l.kBias = w.get(p + "self_attn.k_proj.bias", {kvDim});
      l.vBias = w.get(p + "self_attn.v_proj.bias", {kvDim});
    }
    if (c.oBias) l.oBias = w.get(p + "self_attn.o_proj.bias", {Hd});
    l.gate = w.get(p + "mlp.gate_proj.weight", {I, Hd});
    l.up = w.get(p + "mlp.up_proj.weight", {I, Hd});
    l.down = w.get(p + "mlp.down_proj.weight", {Hd, I});
    m.layers.push_back(std::move(l));
  }
  m.lmHead = c.tieWordEmbeddings ? m.embed : w.get("lm_head.weight", {V, Hd});
  m.weightDtype = dtypeSeen.empty() ? "F32" : dtypeSeen;
  m.dtype = m.embed.scalar_type();
  if (device.is_cuda()) m.moveTo(device, m.dtype); // one compute dtype even when files mix them
  return m;
}

TransformerModel TransformerModel::random(const ModelConfig& c, uint64_t seed, at::Device device) {
  at::manual_seed(seed);
  TransformerModel m;
  m.config = c;
  m.weightDtype = "random";
  auto opts = at::TensorOptions().dtype(at::kFloat);
  auto rnd = [&](std::vector<int64_t> s) { return (at::randn(s, opts) * 0.02).to(device); };
  auto ones = [&](int64_t n) { return at::ones({n}, opts).to(device); };
  const int64_t Hd = c.hiddenSize, I = c.intermediateSize, qDim = c.heads * c.headDim, kvDim = c.kvHeads * c.headDim;
  m.embed = rnd({c.vocabSize, Hd});
  m.finalNorm = ones(Hd);
  for (int64_t i = 0; i < c.layers; ++i) {
    LayerWeights l;
    l.inputNorm = ones(Hd);
    l.postNorm = ones(Hd);
    l.q = rnd({qDim, Hd});
    l.k = rnd({kvDim, Hd});
    l.v = rnd({kvDim, Hd});
    l.o = rnd({Hd, qDim});
    if (c.qkvBias) {
      l.qBias = rnd({qDim});
      l.kBias = rnd({kvDim});
      l.vBias = rnd({kvDim});
    }
    if (c.oBias) l.oBias = rnd({Hd});
    l.gate = rnd({I, Hd});
    l.up = rnd({I, Hd});
    l.down = rnd({Hd, I});
    m.layers.push_back(std::move(l));
  }
  m.lmHead = c.tieWordEmbeddings ? m.embed : rnd({c.vocabSize, Hd});
  m.device = device;
  return m;
}

void TransformerModel::moveTo(at::Device d, at::ScalarType t) {
  c10::InferenceMode normal(false); // weights must stay usable for the gradient pass
  auto mv = [&](at::Tensor& x) {
    if (x.defined()) x = x.to(d, t);
  };
  const bool tied = lmHead.is_same(embed);
  mv(embed);
  mv(finalNorm);
  if (tied)
    lmHead = embed;
  else
    mv(lmHead);
  for (LayerWeights& l : layers)
    for (at::Tensor* x : {&l.inputNorm, &l.postNorm, &l.q, &l.k, &l.v, &l.o, &l.qBias, &l.kBias, &l.vBias, &l.oBias,
                          &l.gate, &l.up, &l.down})
      mv(*x);
  device = d;
  dtype = t;
}

std::vector<at::Tensor> TransformerModel::parameters() const {
  std::vector<at::Tensor> p{embed, finalNorm};
  if (!lmHead.is_same(embed)) p.push_back(lmHead);
  for (const LayerWeights& l : layers)
    for (const at::Tensor* x : {&l.inputNorm, &l.postNorm, &l.q, &l.k, &l.v, &l.o, &l.qBias, &l.kBias, &l.vBias,
                                &l.oBias, &l.gate, &l.up, &l.down})
      if (x->defined()) p.push_back(*x);
  return p;
}

int64_t TransformerModel::parameterCount() const {
  int64_t n = 0;
  for (const at::Tensor& t : parameters()) n += t.numel();
  return n;
}

at::Tensor TransformerModel::hidden(const at::Tensor& ids, const at::Tensor& mask, const at::Tensor& positions,
                                    AttentionKeep* keep) const {
  const ModelConfig& c = config;
  const int64_t b = ids.size(0), T = ids.size(1), H = c.heads, kvH = c.kvHeads, D = c.headDim, rep = H / kvH;
  at::Tensor h = at::embedding(embed, ids); // [b, T, hidden]

  // RoPE: freqs[b, T, D/2] = positions x inv_freq in float32, emb = cat(freqs, freqs).
  at::Tensor inv = inverseFrequencies(c).to(ids.device());
  at::Tensor freqs = positions.to(at::kFloat).unsqueeze(-1) * inv; // [b, T, D/2]
  at::Tensor emb = at::cat({freqs, freqs}, -1);
  at::Tensor cos = emb.cos().to(dtype).unsqueeze(1), sin = emb.sin().to(dtype).unsqueeze(1); // [b,1,T,D]
  at::Tensor addMask = additiveMask(mask, dtype);                                            // [b,1,T,T]
  const double scale = 1.0 / std::sqrt(double(D));

  for (size_t li = 0; li < layers.size(); ++li) {
    const LayerWeights& l = layers[li];
    at::Tensor x = rmsNorm(h, l.inputNorm, c.rmsNormEps);
    at::Tensor q = linear(x, l.q, l.qBias).view({b, T, H, D}).transpose(1, 2);   // [b,H,T,D]
    at::Tensor k = linear(x, l.k, l.kBias).view({b, T, kvH, D}).transpose(1, 2); // [b,kvH,T,D]
    at::Tensor v = linear(x, l.v, l.vBias).view({b, T, kvH, D}).transpose(1, 2);
    q = q * cos + rotateHalf(q) * sin;
    k = k * cos + rotateHalf(k) * sin;
    // Grouped-query attention without repeating K/V: head h uses kv head h / rep, and the rep
    // query heads of one group are stacked along the query axis: [b, kvH, rep*T, D].
    at::Tensor qg = q.reshape({b, kvH, rep * T, D});
    at::Tensor scores = at::matmul(qg, k.transpose(-1, -2)).mul_(scale).view({b, H, T, T});
    scores = scores + addMask;
    at::Tensor probs = at::softmax(scores, -1, at::kFloat).to(dtype); // softmax in float32, as transformers
    if (keep && std::find(keep->layers.begin(), keep->layers.end(), int(li)) != keep->layers.end()) {
      at::Tensor p = probs.detach();
      if (!keep->heads.empty()) {
        std::vector<int64_t> idx(keep->heads.begin(), keep->heads.end());
        p = p.index_select(1, at::tensor(idx, at::kLong).to(p.device()));
      }
      keep->kept[int(li)] = p.to(at::kCPU, at::kFloat).contiguous();
    }
    at::Tensor out = at::matmul(probs.view({b, kvH, rep * T, T}), v) // [b,kvH,rep*T,D]
                         .view({b, H, T, D})
                         .transpose(1, 2)
                         .reshape({b, T, H * D});
    h = h + linear(out, l.o, l.oBias);
    x = rmsNorm(h, l.postNorm, c.rmsNormEps);
    h = h + at::linear(at::silu(at::linear(x, l.gate)) * at::linear(x, l.up), l.down);
  }
  return rmsNorm(h, finalNorm, c.rmsNormEps);
}

at::Tensor TransformerModel::logits(const at::Tensor& h) const { return at::linear(h, lmHead).to(at::kFloat); }

} // namespace maskscope::engine
