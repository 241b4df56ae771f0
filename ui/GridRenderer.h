// Renders a region of a [T, T] attention grid into an image, straight from the row's segment ids
// (the grid is a function of them: AttentionGrid.h), so no T x T buffer is needed at 8k tokens.
// Each output pixel averages up to 4 x 4 sampled cells, so a zoomed-out view keeps the mix of
// reasons instead of aliasing; zoomed in, one pixel per cell is rendered and scaled by the caller.
#pragma once
#include "core/mask/AttentionGrid.h"

#include <QImage>
#include <QRect>
#include <cstdint>
#include <vector>

namespace maskscope {

struct GridSource {
  std::vector<int64_t> segments;             // segmentIdsForRow: 0 = padding, 1.. = example
  const std::vector<float>* probs = nullptr; // optional [T, T] attention probabilities (row-major)
  int64_t size() const { return int64_t(segments.size()); }
  CellState state(int64_t q, int64_t k) const {
    if (k > q) return CellState::Future;
    const int64_t sk = segments[size_t(k)];
    if (sk == 0) return CellState::Padding;
    const int64_t sq = segments[size_t(q)];
    if (sq != 0 && sq != sk) return CellState::OtherExample;
    return CellState::Allowed;
  }
};

// cells: the region in cell units (x = keys, y = queries), clipped to the grid. out: pixels.
QImage renderGridRegion(const GridSource& source, QRect cells, QSize out);

} // namespace maskscope
