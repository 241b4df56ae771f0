// Which token pads when nobody chose one: the pad-falls-back-to-EOS rule, decided in this one place.
#pragma once
#include "core/tokenizer/Tokenizer.h"

#include <optional>

namespace maskscope {

// The id padding uses when nobody chose a pad token: the tokenizer's pad, else its EOS (what
// `tokenizer.pad_token = tokenizer.eos_token` and TRL's default do), else none. The collator pads
// with it; core/lint's batch linter and pad-token-missing check make the same decision.
struct DefaultPad {
  std::optional<int32_t> id;
  bool fromEos = false; // true when the EOS stands in for a missing pad token
};
inline DefaultPad defaultPad(const SpecialTokenIds& sp) {
  if (sp.pad) return {sp.pad, false};
  if (sp.eos) return {sp.eos, true};
  return {};
}

} // namespace maskscope
