// Renders a region of a [T, T] attention grid into an image, straight from the row's per-position
// facts (the grid is a function of them: CellClass.h), so no T x T buffer is needed at 8k tokens.
// Each output pixel averages up to 4 x 4 sampled cells, so a zoomed-out view keeps the mix of
// reasons instead of aliasing; zoomed in, one pixel per cell is rendered and scaled by the caller.
// Cells that are allowed but should not be (a pad key, another example's key) are striped when an
// output pixel is a screen pixel; the caller hatches them when it scales cells up.
#pragma once
#include "core/mask/CellClass.h"

#include <QImage>
#include <QRect>
#include <cstdint>
#include <vector>

namespace maskscope {

// One row as the renderer reads it: the row's anatomy (mask segments, padding, examples) plus
// optional probabilities and a grid to diff against.
struct GridSource : RowAnatomy {
  const std::vector<float>* probs = nullptr; // optional [T, T] attention probabilities (row-major)
  const GridSource* diff = nullptr;          // optional: cells whose state differs from it are tinted
  int64_t diffShift = 0;                     // the compared grid's position = this position + diffShift

  // The cell differs from its aligned cell in the compared grid (core/mask/RowComparison.h): the
  // definition the compare view counts. A cell without a counterpart (one row is longer) is not
  // compared, so never tinted; above the diagonal both grids are causal, so nothing differs.
  bool differs(int64_t q, int64_t k) const {
    if (!diff || k > q || !hasCounterpart(q, k)) return false;
    return state(q, k) != diff->state(q + diffShift, k + diffShift);
  }
  // The compared grid has the aligned cell (false without a compared grid).
  bool hasCounterpart(int64_t q, int64_t k) const {
    const int64_t q2 = q + diffShift, k2 = k + diffShift;
    return diff && q2 >= 0 && k2 >= 0 && q2 < diff->size() && k2 < diff->size();
  }
};

// cells: the region in cell units (x = keys, y = queries), clipped to the grid. out: pixels.
QImage renderGridRegion(const GridSource& source, QRect cells, QSize out);
// The colour of one probability on the theme's scale (0 = the theme's base, 1 = allowed blue).
QColor probabilityColour(double p);
// Strip colour of position t (the kind strips along the grid): pad, special token or its example; on
// the query strip (query) a pad whose output the loss grades is the graded-pad red.
QColor stripColour(const GridSource& source, int64_t t, bool query);

} // namespace maskscope
