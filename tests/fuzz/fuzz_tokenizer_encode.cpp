// libFuzzer harness: arbitrary bytes encoded and decoded by the builtin SentencePiece demo tokenizer or
// (first byte odd) llama3's tokenizer.json from the tokenizer cache; see FuzzTargets.h.
#include "tests/fuzz/FuzzTargets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  maskscope::fuzz::runTokenizerEncodeInput(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
