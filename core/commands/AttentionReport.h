// The attention implementation a command judged the batch under, and the transformers rule that
// decided its mask: the "attention" line of the text output and the "attention" object of the JSON
// of lint, loss and snapshot (docs/cli.md).
#pragma once
#include "core/mask/EffectiveAttention.h"

#include <nlohmann/json.hpp>

#include <string>

namespace maskscope {

struct AttentionReport {
  AttnChoice choice;
  EffectiveMask mask;
};

// name: --attn-implementation (empty: what the batch implies). Throws Error on an unknown name and when
// transformers cannot run the batch under it (flash_attention_2 with a 4-D mask).
AttentionReport attentionReport(const Batch& batch, const std::string& name);
// {"implementation": "sdpa", "assumed": true, "assumed_from": "...", "rule": "sdpa: ..."}
nlohmann::json attentionJson(const AttentionReport& report);
// "attention: sdpa (assumed: transformers' default attn_implementation)\n  rule: sdpa: ...\n"
std::string attentionText(const AttentionReport& report);

} // namespace maskscope
