// How Unsloth's train_on_responses_only turns a marker string ("<|im_start|>assistant\n") into the
// token ids it searches for: the core it must find plus optional neighbouring tokens it may extend
// over (unsloth_zoo/dataset_utils.py: _longest_common_sublist, _find_common_token_ids).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace maskscope::unsloth {

// The unsloth-zoo releases whose marker search and row handling are reproduced (see UnslothSpec.h).
enum class ZooVersion {
  v2025_12, // unsloth-zoo 2025.12.7 (commit 48451258): fully masked rows stay in the dataset
  v2026_8,  // unsloth-zoo 2026.8.13 (commit ce232d6c): last_response_only, fully masked rows dropped
};

struct TokenMarker {
  std::vector<int32_t> core;          // must match exactly
  std::vector<int32_t> optionalLeft;  // tokens of the marker's own tokenization before the core
  std::vector<int32_t> optionalRight; // ... and after it
  bool operator==(const TokenMarker&) const = default;
};

// tokenizer(text, add_special_tokens=False).input_ids
using EncodeIds = std::function<std::vector<int32_t>(const std::string&)>;

// _longest_common_sublist: the longest run of ids present in every list (binary search on the
// length). Upstream returns set.pop() of the surviving runs, an order CPython's set decides; here
// ties go to the run that comes first in lists[0], and *tied (when given) says whether there was a
// tie at the final length.
std::vector<int32_t> longestCommonSublist(const std::vector<std::vector<int32_t>>& lists, bool* tied = nullptr);

// _find_common_token_ids(component, tokenizer, force_match). force_match=true (Unsloth's default):
// the core is the component's own tokenization. force_match=false: the longest common run of 18
// spellings with 0-2 leading/trailing newlines or spaces. v2026_8 returns an empty marker when the
// core is not inside the component's own tokenization; v2025_12 then takes optional tokens from
// the last index its loop reached (throws Error when the component tokenizes to nothing, where
// upstream fails with UnboundLocalError).
TokenMarker findCommonTokenIds(const std::string& component, const EncodeIds& encode, bool forceMatch,
                               ZooVersion version, bool* tied = nullptr);

} // namespace maskscope::unsloth
