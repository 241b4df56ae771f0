// The least sizes the views keep wherever they are docked, so a 1024 x 768 projector scrolls a panel
// rather than squeezing its charts and grids to nothing (tests/ui/tst_panel_sizes checks them).
#pragma once

namespace maskscope {

inline constexpr int kLeastCanvasHeight = 150; // a chart or attention grid, in pixels

} // namespace maskscope
