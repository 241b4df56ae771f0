// SentencePiece encode throughput of maskscope's tokenizer (ids, pieces, byte offsets, special-token
// splitting) on the demo model, as a ratio to libsentencepiece's own EncodeAsIds on the same text
// and model, measured in the same run. (Moved here from tests/tokenizer_sp.)
#include "core/resources/BuiltinResources.h"
#include "core/tokenizer/Tokenizer.h"

#include <sentencepiece_processor.h>

#include <chrono>
#include <cstdio>

using namespace maskscope;

int main() {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "The attention mask hides padding from every real token. ";
  auto tok = loadTokenizer("builtin:demo");
  auto model = builtinResource("demo/tokenizer.model");
  sentencepiece::SentencePieceProcessor reference;
  if (!model || !reference.LoadFromSerializedProto(*model).ok()) {
    std::fprintf(stderr, "bench_tokenizer_sp: cannot load the demo model into libsentencepiece\n");
    return 1;
  }
  auto time = [](int n, auto&& f) {
    f(); // warm up
    auto b = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) f();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - b).count() / n;
  };
  size_t sink = 0;
  double ref = time(200, [&] {
    std::vector<int> ids;
    (void)reference.Encode(text, &ids);
    sink += ids.size();
  });
  double ours = time(200, [&] { sink += tok->encode(text).ids.size(); });
  std::printf("demo sentencepiece, %zu bytes: maskscope %.1f us, libsentencepiece EncodeAsIds %.1f us "
              "(ratio %.2fx)   [sink %zu]\n",
              text.size(), ours, ref, ours / ref, sink);
  return 0;
}
