// libFuzzer harness: arbitrary bytes into maskscope::fuzz::runSentencePieceModel (see FuzzTargets.h).
#include "tests/fuzz/FuzzTargets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  maskscope::fuzz::runSentencePieceModel(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
