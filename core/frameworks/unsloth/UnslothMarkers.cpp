// Unsloth's marker resolution, read from unsloth_zoo/dataset_utils.py at 2025.12.7 (48451258) and
// 2026.8.13 (ce232d6c); see UnslothMarkers.h.
#include "core/frameworks/unsloth/UnslothMarkers.h"
#include "core/frameworks/pytext/PythonText.h"
#include "core/util/Error.h"

#include <algorithm>
#include <set>

namespace maskscope::unsloth {

namespace {

using Ids = std::vector<int32_t>;

// has_common_sublist(length): the runs of that length present in every list, in lists[0] order.
std::vector<Ids> commonRuns(const std::vector<Ids>& lists, size_t length) {
  std::set<Ids> common;
  const Ids& first = lists[0];
  for (size_t i = 0; i + length <= first.size(); ++i) common.insert(Ids(first.begin() + i, first.begin() + i + length));
  for (size_t l = 1; l < lists.size() && !common.empty(); ++l) {
    std::set<Ids> current;
    const Ids& lst = lists[l];
    for (size_t i = 0; i + length <= lst.size(); ++i) {
      Ids sub(lst.begin() + i, lst.begin() + i + length);
      if (common.count(sub)) current.insert(std::move(sub));
    }
    common = std::move(current);
  }
  std::vector<Ids> ordered;
  for (size_t i = 0; i + length <= first.size(); ++i) {
    Ids sub(first.begin() + i, first.begin() + i + length);
    if (common.count(sub) && std::find(ordered.begin(), ordered.end(), sub) == ordered.end()) ordered.push_back(sub);
  }
  return ordered;
}

bool startsWithAt(const Ids& hay, size_t at, const Ids& needle) {
  // Python: hay[at : at + len(needle)] == needle (a short slice never equals)
  if (at + needle.size() > hay.size()) return false;
  return std::equal(needle.begin(), needle.end(), hay.begin() + at);
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

} // namespace

std::vector<int32_t> longestCommonSublist(const std::vector<std::vector<int32_t>>& lists, bool* tied) {
  if (tied) *tied = false;
  if (lists.empty()) return {};
  size_t minLen = lists[0].size();
  for (const auto& l : lists) minLen = std::min(minLen, l.size());
  if (minLen == 0) return {};
  // Binary search on the length, as upstream: a length that has a common run moves left up.
  size_t left = 1, right = minLen;
  Ids result;
  while (left <= right) {
    const size_t mid = left + (right - left) / 2;
    auto runs = commonRuns(lists, mid);
    if (!runs.empty()) {
      result = runs.front();
      if (tied) *tied = runs.size() > 1;
      left = mid + 1;
    } else {
      if (mid == 0) break;
      right = mid - 1;
    }
  }
  return result;
}

TokenMarker findCommonTokenIds(const std::string& component, const EncodeIds& encode, bool forceMatch,
                               bool emptyWhenCoreMissing, bool* tied) {
  std::string rightText, leftText;
  if (component.ends_with(" "))
    rightText = " ";
  else if (component.ends_with("\n"))
    rightText = "\n";
  if (component.starts_with(" "))
    leftText = " ";
  else if (component.starts_with("\n"))
    leftText = "\n";
  const std::string stripped = pytext::strip(component);

  std::vector<Ids> all;
  if (!forceMatch) {
    for (int left = 0; left < 3; ++left)
      for (int right = 0; right < 3; ++right) {
        all.push_back(encode(repeat(leftText, left) + stripped + repeat(rightText, right)));
        all.push_back(encode(repeat("\n", left) + stripped + repeat("\n", right)));
      }
  } else {
    all.push_back(encode(component));
  }
  std::vector<Ids> sentinel = all;
  for (auto& x : sentinel) x.push_back(0); // upstream's x + [0]
  Ids substring = longestCommonSublist(sentinel, tied);

  // A single-token marker comes out as [0]: keep the token itself when every spelling holds it.
  if (substring == Ids{0} && all[0].size() == 1) {
    const int32_t single = all[0][0];
    if (std::all_of(all.begin(), all.end(),
                    [&](const Ids& x) { return std::find(x.begin(), x.end(), single) != x.end(); }))
      substring = {single};
  }
  // Every spelling tokenized alike: the sentinel run is the tokenization + [0]; keep the tokenization.
  const bool allSame = std::all_of(all.begin(), all.end(), [&](const Ids& x) { return x == all[0]; });
  if (allSame && all[0].size() + 1 == substring.size() && std::equal(all[0].begin(), all[0].end(), substring.begin()))
    substring = all[0];

  const Ids original = encode(component);
  long where = -1;
  for (size_t j = 0; j < original.size(); ++j)
    if (startsWithAt(original, j, substring)) {
      where = long(j);
      break;
    }
  if (where < 0) {
    if (emptyWhenCoreMissing) return {};
    // 2025.12: `for j in range(len(original))` fell through, leaving j at the last index.
    if (original.empty())
      throw Error("marker '" + component +
                  "' tokenizes to nothing (unsloth-zoo 2025.12 fails here with "
                  "UnboundLocalError)");
    where = long(original.size()) - 1;
  }
  TokenMarker m;
  m.core = substring;
  m.optionalLeft.assign(original.begin(), original.begin() + where);
  const size_t after = std::min(original.size(), size_t(where) + substring.size());
  m.optionalRight.assign(original.begin() + after, original.end());
  return m;
}

} // namespace maskscope::unsloth
