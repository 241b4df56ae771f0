// The colours every view uses for the same meaning, chosen to stay distinct for colour-blind
// readers (blue/orange contrast) and paired with a second cue (pattern or glyph) in each view.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/AttentionGrid.h"

#include <QColor>

namespace maskscope::palette {

QColor roleColour(PositionKind kind);
inline QColor graded() { return QColor(0x1f, 0x77, 0xb4); }    // blue: label kept
inline QColor ignored() { return QColor(0xbd, 0xbd, 0xbd); }   // grey: -100
inline QColor padding() { return QColor(0xff, 0x7f, 0x0e); }   // orange: pad position
inline QColor gradedPad() { return QColor(0xd6, 0x27, 0x28); } // red: pad that is graded (a bug)
QColor cellColour(CellState s);

} // namespace maskscope::palette
