// train_on_responses_only's token search, translated statement by statement from unsloth_zoo
// dataset_utils.py (2026.8.13, ce232d6c; the loop is the same in 2025.12.7). Its quirks are kept,
// because they decide which tokens are graded:
// - `k` is assigned by the walrus inside `(ids[j] == first) and (ids[j:(k := j+len)] == must)`,
//   so it moves whenever the first token matches, even when the whole marker does not;
// - the optional right tokens are compared with ids[k + 1], one past the token after the marker;
// - reaching the last position counts as finding the instruction marker (the reply runs to the end).
#include "core/frameworks/unsloth/ResponsesOnly.h"

#include <algorithm>

namespace maskscope::unsloth {

namespace {

bool sliceEquals(std::span<const int32_t> ids, size_t from, const std::vector<int32_t>& must) {
  if (from + must.size() > ids.size()) return false;
  return std::equal(must.begin(), must.end(), ids.begin() + long(from));
}

// for optional_left in reversed(left): if j < 1: break; if optional_left == ids[j-1]: j -= 1 else break
void extendLeft(std::span<const int32_t> ids, const std::vector<int32_t>& left, long& j) {
  for (auto it = left.rbegin(); it != left.rend(); ++it) {
    if (j < 1) break;
    if (*it == ids[size_t(j - 1)])
      --j;
    else
      break;
  }
}

// for optional_right in right: if k >= n - 1: break; if optional_right == ids[k+1]: k += 1 else break
void extendRight(std::span<const int32_t> ids, const std::vector<int32_t>& right, long& k) {
  const long nMinus1 = long(ids.size()) - 1;
  for (int32_t r : right) {
    if (k >= nMinus1) break;
    if (r == ids[size_t(k + 1)])
      ++k;
    else
      break;
  }
}

} // namespace

std::vector<ResponseSpan> responseSpans(std::span<const int32_t> ids, const ResponseMarkers& markers) {
  const auto& A = markers.response;
  const auto& Q = markers.instruction;
  std::vector<ResponseSpan> spans;
  if (A.core.empty() || Q.core.empty()) return spans;
  const long n = long(ids.size()), nMinus1 = n - 1;
  long j = 0, k = 0;
  while (j < n) {
    bool foundA = false;
    if (ids[size_t(j)] == A.core[0]) {
      k = j + long(A.core.size());
      foundA = sliceEquals(ids, size_t(j), A.core);
    }
    if (foundA) {
      extendLeft(ids, A.optionalLeft, j);
      extendRight(ids, A.optionalRight, k);
      const long assistantK = k;
      j = assistantK;
      while (j < n) {
        bool foundQ = j == nMinus1;
        if (!foundQ && ids[size_t(j)] == Q.core[0]) {
          k = j + long(Q.core.size());
          foundQ = sliceEquals(ids, size_t(j), Q.core);
        }
        if (foundQ) {
          extendLeft(ids, Q.optionalLeft, j);
          extendRight(ids, Q.optionalRight, k);
          long userJ = j;
          if (userJ != nMinus1) {
            j = k;
          } else {
            userJ = n;
            k = n;
          }
          // Python slices clamp: labels[a:b] with a past the end (or b < a) writes nothing.
          const size_t b = size_t(std::clamp(assistantK, 0L, n)), e = size_t(std::clamp(userJ, 0L, n));
          spans.push_back({b, std::max(b, e)});
          break;
        }
        ++j;
      }
    }
    ++j;
  }
  return spans;
}

std::vector<int32_t> responsesOnlyLabels(std::span<const int32_t> ids,
                                         const std::optional<std::vector<int32_t>>& oldLabels,
                                         const ResponseMarkers& markers, bool lastResponseOnly) {
  std::vector<int32_t> labels(ids.size(), -100);
  auto spans = responseSpans(ids, markers);
  if (lastResponseOnly && spans.size() > 1) spans.erase(spans.begin(), spans.end() - 1);
  for (const auto& s : spans)
    for (size_t t = s.begin; t < s.end; ++t) labels[t] = oldLabels ? (*oldLabels)[t] : ids[t];
  return labels;
}

} // namespace maskscope::unsloth
