// The labels Unsloth's train_on_responses_only writes for one tokenized row: -100 everywhere except
// from the end of each response marker to the start of the next instruction marker (or the end of
// the row). A row where the response marker never appears stays all -100.
#pragma once
#include "core/frameworks/unsloth/UnslothMarkers.h"

#include <optional>
#include <span>
#include <vector>

namespace maskscope::unsloth {

struct ResponseMarkers {
  TokenMarker instruction; // Q_must, Q_left, Q_right upstream
  TokenMarker response;    // A_must, A_left, A_right
};

struct ResponseSpan {
  size_t begin = 0, end = 0; // labels[begin:end] copied (assistant_k, user_j upstream)
};

// The spans the search finds in ids, in order (both markers' cores must be non-empty).
std::vector<ResponseSpan> responseSpans(std::span<const int32_t> ids, const ResponseMarkers& markers);

// _train_on_responses_only for one row: labels [T]. oldLabels (a `labels` column the row already
// had) are copied inside the spans instead of input_ids. lastResponseOnly keeps only the last span.
std::vector<int32_t> responsesOnlyLabels(std::span<const int32_t> ids,
                                         const std::optional<std::vector<int32_t>>& oldLabels,
                                         const ResponseMarkers& markers, bool lastResponseOnly);

} // namespace maskscope::unsloth
