// bench_collate [conversations=10000] [batch_size=8]
// Renders and tokenizes N conversations (the demo dataset, cycled) once, then collates them in
// batches with every preset. Prints each preset's time and its ratio to the encoding time measured
// in the same run: collating must stay a small fraction of tokenization.
#include "core/collate/DatasetPipeline.h"
#include "core/data/DatasetReader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace maskscope;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 10000;
  const size_t batchSize = argc > 2 ? size_t(std::atol(argv[2])) : 8;
  if (n <= 0 || batchSize == 0) {
    std::fprintf(stderr, "usage: bench_collate [conversations] [batch_size]\n");
    return 2;
  }
  std::vector<Conversation> demo = readDataset("builtin:demo");
  PipelineSpec ps;
  ps.tokenizerSpec = "builtin:demo";
  ps.templateSpec = "chatml";
  DatasetPipeline pipeline(ps);

  auto t0 = std::chrono::steady_clock::now();
  std::vector<TokenizedConversation> encoded;
  encoded.reserve(size_t(n));
  size_t tokens = 0;
  for (long i = 0; i < n; ++i) {
    Conversation c = demo[size_t(i) % demo.size()];
    c.rowIndex = i;
    encoded.push_back(pipeline.encode(c));
    tokens += encoded.back().tokens.size();
  }
  const double encodeSeconds = secondsSince(t0);
  std::printf("encode (render + tokenize): %ld conversations, %zu tokens, %.3f s\n", n, tokens, encodeSeconds);
  std::printf("%-28s %10s %12s %10s\n", "preset", "seconds", "batches", "ratio");

  double worst = 0;
  for (const CollatorPreset& preset : collatorPresets()) {
    DatasetPipeline p(pipeline, parseCollatorSpec(preset.name));
    auto t1 = std::chrono::steady_clock::now();
    size_t batches = 0;
    int64_t checksum = 0;
    std::vector<TokenizedConversation> chunk;
    for (size_t i = 0; i < encoded.size(); i += batchSize) {
      chunk.assign(encoded.begin() + long(i), encoded.begin() + long(std::min(encoded.size(), i + batchSize)));
      Batch b = p.collate(chunk);
      checksum += b.length();
      ++batches;
    }
    const double s = secondsSince(t1);
    worst = std::max(worst, s);
    std::printf("%-28s %10.3f %12zu %9.1f%%   (checksum %lld)\n", preset.name.c_str(), s, batches,
                100.0 * s / encodeSeconds, static_cast<long long>(checksum));
  }
  std::printf("slowest preset: %.3f s for %ld conversations = %.1f%% of encoding time\n", worst, n,
              100.0 * worst / encodeSeconds);
  return 0;
}
