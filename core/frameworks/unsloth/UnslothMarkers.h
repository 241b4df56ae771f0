// How Unsloth's train_on_responses_only turns a marker string ("<|im_start|>assistant\n") into the
// token ids it searches for: the core it must find plus optional neighbouring tokens it may extend
// over (unsloth_zoo/dataset_utils.py: _longest_common_sublist, _find_common_token_ids).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace maskscope::unsloth {

// What an unsloth-zoo release does in train_on_responses_only, read from its catalogue row's
// behaviour flags (UnslothFramework.cpp): a new release is a catalogue row, never a new branch on a
// version. 2026.8.13 (ce232d6c) has every flag; 2025.12.7 (48451258) none.
struct ZooBehaviour {
  bool emptyMarkerWhenCoreMissing = false; // false: optional tokens from the loop's last index, Error when empty
  bool dropsFullyMaskedRows = false;       // _filter_fully_masked removes rows left all -100
  bool lastResponseOnly = false;           // the last_response_only option is read
  bool autoDetectsMarkers = false;         // neither marker given: upstream would read them from the template
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
// spellings with 0-2 leading/trailing newlines or spaces. With emptyWhenCoreMissing (2026.x) an
// empty marker comes back when the core is not inside the component's own tokenization; without it
// (2025.12) optional tokens are taken from the last index its loop reached (throws Error when the
// component tokenizes to nothing, where upstream fails with UnboundLocalError).
TokenMarker findCommonTokenIds(const std::string& component, const EncodeIds& encode, bool forceMatch,
                               bool emptyWhenCoreMissing, bool* tied = nullptr);

} // namespace maskscope::unsloth
