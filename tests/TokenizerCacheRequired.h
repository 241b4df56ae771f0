// The tests that need a real tokenizer from the cache (tools/fetch-tokenizers.sh) share one policy:
// a missing cache fails (CI fetches it; a skip would hide a broken fetch), unless
// MASKSCOPE_ALLOW_MISSING_TOKENIZERS=1 asks to skip.
#pragma once
#include <QTest>
#include <cstdlib>
#include <string>

#define REQUIRE_TOKENIZER_CACHE(present)                                                                               \
  do {                                                                                                                 \
    if (!(present)) {                                                                                                  \
      const char* allow = std::getenv("MASKSCOPE_ALLOW_MISSING_TOKENIZERS");                                           \
      if (allow && std::string(allow) == "1") QSKIP("tokenizer cache missing (tools/fetch-tokenizers.sh)");            \
      QFAIL("tokenizer cache missing: run tools/fetch-tokenizers.sh (or MASKSCOPE_ALLOW_MISSING_TOKENIZERS=1)");       \
    }                                                                                                                  \
  } while (0)
