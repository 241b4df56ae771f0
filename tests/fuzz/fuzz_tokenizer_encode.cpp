// libFuzzer harness: arbitrary bytes encoded by the builtin SentencePiece demo tokenizer and by the
// llama3 tokenizer.json from tests/data/tokenizer_hf (byte-level BPE, regex pre-tokenizer, added tokens).
#include "tests/fuzz/FuzzTargets.h"
#include "core/tokenizer/hf/HfTokenizerLoader.h"

namespace {
const maskscope::Tokenizer& demo() {
  static auto t = maskscope::loadTokenizer("builtin:demo");
  return *t;
}
const maskscope::Tokenizer& hfTokenizer() {
  static auto t = maskscope::loadHuggingFaceTokenizer(MASKSCOPE_TEST_DATA_DIR "/tokenizer_hf/llama3.json");
  return *t;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the tokenizer so each input exercises one of them.
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  maskscope::fuzz::runTokenizerEncode(text, (data[0] & 1) ? hfTokenizer() : demo());
  return 0;
}
