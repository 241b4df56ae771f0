// The driver's bench mode: a Qwen3-0.6B-shaped model (a model folder, e.g. tools/model/realshape.py's
// random BF16 weights, or the same config with random float32 weights from a seed), a [B, T] batch of
// right-padded rows of random lengths, collated the quiz's buggy way (pads to the longest row,
// attention_mask all ones, labels = input_ids) as given and with the correct masks as the variants
// (what core/forward/LossPlan.cpp's buildLossRequest makes of such a batch). Times forward + per-token
// NLL and the loss comparison (with gradients): one warm-up run, then steady-state runs.
#include "tools/cuda/Driver.h"

#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <random>

namespace maskscope::cudadriver {
namespace {

using nlohmann::json;

// Qwen3-0.6B's config.json as tools/model/realshape.py's SHAPES["qwen3-0.6b"] writes it.
json qwen3Config(int64_t layers) {
  return {{"architectures", {"Qwen3ForCausalLM"}},
          {"model_type", "qwen3"},
          {"vocab_size", 151936},
          {"hidden_size", 1024},
          {"intermediate_size", 3072},
          {"num_hidden_layers", layers > 0 ? layers : 28},
          {"num_attention_heads", 16},
          {"num_key_value_heads", 8},
          {"head_dim", 128},
          {"rms_norm_eps", 1e-6},
          {"rope_theta", 1000000},
          {"rope_scaling", nullptr},
          {"tie_word_embeddings", true},
          {"hidden_act", "silu"},
          {"attention_bias", false},
          {"use_sliding_window", false},
          {"sliding_window", nullptr},
          {"max_window_layers", 28},
          {"torch_dtype", "bfloat16"}};
}

// Qwen's <|endoftext|>, its tokenizer's pad token; kept inside smaller vocabularies.
int64_t padIdFor(int64_t vocab) { return std::min<int64_t>(151643, vocab - 1); }

struct BenchBatch {
  int64_t pad = 0;
  std::vector<int64_t> lengths; // [B]; row 0 is T long, so the longest row sets the padding
  IntGrid ids;                  // [B, T], right-padded with pad
};

// Seeded with std::mt19937_64 (the same numbers on every platform); lengths uniform in [T/4, T],
// ids uniform over the vocabulary without the pad id (so pads are exactly the positions >= length).
BenchBatch makeBatch(int64_t B, int64_t T, int64_t vocab, uint64_t seed) {
  BenchBatch b;
  b.pad = padIdFor(vocab);
  b.ids = IntGrid(B, T, b.pad);
  std::mt19937_64 rng(seed);
  for (int64_t r = 0; r < B; ++r) {
    const int64_t len = r == 0 ? T : std::max<int64_t>(2, T / 4 + int64_t(rng() % uint64_t(T - T / 4 + 1)));
    b.lengths.push_back(len);
    for (int64_t t = 0; t < len; ++t) {
      int64_t id = int64_t(rng() % uint64_t(vocab - 1));
      b.ids.at(r, t) = id >= b.pad ? id + 1 : id;
    }
  }
  return b;
}

void writeBatch(const BenchBatch& b, const std::string& path) {
  json rows = json::array();
  for (int64_t r = 0; r < b.ids.rows; ++r)
    rows.push_back(
        std::vector<int64_t>(b.ids.values.begin() + r * b.ids.cols, b.ids.values.begin() + (r + 1) * b.ids.cols));
  json j = {{"pad_token_id", b.pad}, {"shape", {b.ids.rows, b.ids.cols}}, {"lengths", b.lengths}, {"input_ids", rows}};
  std::ofstream out(path);
  out << j.dump() << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

// The buggy collator's grids (as given) and the loss comparison's request, as buildLossRequest
// builds it for this batch: roles pad / unknown (no collator metadata), variants fixed,
// labels_fixed_only, attention_fixed_only; logits compared with attention_fixed_only.
LossRequest lossRequest(const BenchBatch& b) {
  const int64_t B = b.ids.rows, T = b.ids.cols;
  LossRequest req;
  req.asGiven.inputIds = b.ids;
  req.asGiven.attentionMask = IntGrid(B, T, 1);
  req.asGiven.labels = b.ids;
  req.roles = IntGrid(B, T, RoleUnknown);
  IntGrid fixedMask(B, T, 1), fixedLabels = b.ids;
  for (int64_t r = 0; r < B; ++r)
    for (int64_t t = b.lengths[size_t(r)]; t < T; ++t) {
      req.roles.at(r, t) = RolePad;
      fixedMask.at(r, t) = 0;
      fixedLabels.at(r, t) = kIgnoreIndex;
    }
  req.variants.push_back({"fixed", fixedMask, {}, fixedLabels});
  req.variants.push_back({"labels_fixed_only", req.asGiven.attentionMask, {}, fixedLabels});
  req.variants.push_back({"attention_fixed_only", fixedMask, {}, b.ids});
  req.compareLogitsWith = "attention_fixed_only";
  req.gradients = true;
  return req;
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs work once to warm up (CUDA context, kernels, the caching allocator), then `repeat` times;
// returns the last result with the steady-state seconds (median over the repeats) and the warm-up's.
template <typename Work> auto timed(int64_t repeat, Work&& work, double& seconds, double& warmup) {
  auto t0 = std::chrono::steady_clock::now();
  auto result = work();
  warmup = secondsSince(t0);
  std::vector<double> runs;
  for (int64_t i = 0; i < std::max<int64_t>(1, repeat); ++i) {
    t0 = std::chrono::steady_clock::now();
    result = work();
    runs.push_back(secondsSince(t0));
  }
  std::sort(runs.begin(), runs.end());
  seconds = runs[runs.size() / 2];
  return result;
}

double variant(const LossReport& rep, const std::string& name) {
  for (const auto& [n, v] : rep.variantLoss)
    if (n == name) return v;
  return NAN;
}

// The vocabulary the batch is drawn from, read before the model loads: the batch file is written
// even when loading fails, so the python side can still run on it.
int64_t vocabOf(const Options& o) {
  const std::string folder = o.get("model", "");
  if (folder.empty()) return qwen3Config(0).at("vocab_size").get<int64_t>();
  const std::string path = folder + "/config.json";
  const json c = parseJsonOrThrow(readFileCapped(path, int64_t(16) << 20), {path, -1, -1, -1, ""});
  if (!c.contains("vocab_size") || !c.at("vocab_size").is_number_integer() || c.at("vocab_size").get<int64_t>() < 2)
    throw std::runtime_error(path + ": no usable vocab_size");
  return c.at("vocab_size").get<int64_t>();
}

std::shared_ptr<ForwardModel> loadBenchModel(ForwardEngine& engine, const Options& o, const std::string& device) {
  ModelSource src;
  const std::string folder = o.get("model", "");
  if (!folder.empty()) {
    src.spec = src.folder = folder;
  } else {
    src.spec = "random qwen3-0.6b";
    src.configJson = qwen3Config(o.number("layers", 0)).dump();
    src.randomSeed = uint64_t(o.number("seed", 1234));
  }
  return engine.loadModel(src, device, {});
}

} // namespace

int runBench(ForwardEngine& engine, const Options& o) {
  const std::string shape = o.get("shape", "2x128"), device = o.get("device", "cpu");
  const auto x = shape.find('x');
  const int64_t B = x == std::string::npos ? 0 : std::atoll(shape.substr(0, x).c_str());
  const int64_t T = x == std::string::npos ? 0 : std::atoll(shape.substr(x + 1).c_str());
  if (B <= 0 || T < 8 || B * T > (int64_t(1) << 22)) throw std::runtime_error("--shape BxT: got " + shape);
  const int64_t repeat = o.number("repeat", 1);
  json base = {{"mode", "bench"}, {"side", "maskscope"}, {"shape", shape}};

  const int64_t vocab = vocabOf(o);
  const BenchBatch batch = makeBatch(B, T, vocab, uint64_t(o.number("seed", 1234)));
  if (!o.get("batch-out", "").empty()) writeBatch(batch, o.get("batch-out", ""));
  const LossRequest req = lossRequest(batch);

  auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<ForwardModel> model = loadBenchModel(engine, o, device);
  const ModelInfo& info = model->info();
  base["device"] = info.device;
  base["dtype"] = info.computeDtype;
  json loaded = base;
  loaded.update({{"event", "model"},
                 {"seconds", secondsSince(t0)},
                 {"layers", info.layers},
                 {"parameters", info.parameterCount},
                 {"weights", info.weightDtype},
                 {"notes", info.notes}});
  emit(loaded);

  if (info.vocabSize != vocab)
    throw std::runtime_error("the model's vocabulary (" + std::to_string(info.vocabSize) + ") is not config.json's");

  // Each work on its own: an exception in one (a CUDA error, a fallback that fails) is reported and
  // the other still runs.
  int failures = 0;
  auto work = [&](const char* name, const std::function<json()>& run) {
    json line = base;
    line["work"] = name;
    try {
      line.update(run());
    } catch (const std::exception& e) {
      line["error"] = e.what();
      ++failures;
    }
    emit(line);
  };
  work("forward", [&] {
    double seconds = 0, warmup = 0;
    ForwardOutput out = timed(
        repeat, [&] { return model->forward(req.asGiven, {}, false, {}); }, seconds, warmup);
    return json{{"seconds", seconds}, {"warmup_seconds", warmup},  {"peak_mib", out.peakDeviceMemoryMiB},
                {"loss", out.loss},   {"graded", out.gradedCount}, {"notes", out.notes}};
  });
  if (o.get("skip-loss", "") != "1")
    work("loss", [&] {
      double seconds = 0, warmup = 0;
      LossReport rep = timed(
          repeat, [&] { return model->analyse(req, {}); }, seconds, warmup);
      return json{{"seconds", seconds},
                  {"warmup_seconds", warmup},
                  {"peak_mib", rep.peakDeviceMemoryMiB},
                  {"as_given", rep.asGiven},
                  {"fixed", variant(rep, "fixed")},
                  {"labels_fixed_only", variant(rep, "labels_fixed_only")},
                  {"attention_fixed_only", variant(rep, "attention_fixed_only")},
                  {"grad_norm_pad", rep.gradNormPad},
                  {"grad_norm_real", rep.gradNormReal},
                  {"max_logit_change_real", rep.maxLogitChangeReal},
                  {"notes", rep.notes}};
    });
  return failures ? 1 : 0;
}

} // namespace maskscope::cudadriver
