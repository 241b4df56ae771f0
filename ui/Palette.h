// The colours every view uses for the same meaning, chosen to stay distinct for colour-blind
// readers (blue/orange contrast) and paired with a second cue (pattern or glyph) in each view.
// Two themes (light, dark); text colours are picked to pass WCAG 4.5:1 on the theme's base.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/AttentionGrid.h"

#include <QColor>
#include <QPalette>

namespace maskscope::palette {

enum class Theme { Light, Dark };
Theme theme();
void setTheme(Theme t);                                 // also applies the QPalette to the running QApplication
QPalette qtPalette(Theme t);                            // the widget palette of a theme
double contrastRatio(const QColor& a, const QColor& b); // WCAG 2.x relative-luminance ratio

QColor roleColour(PositionKind kind);
QColor graded();      // blue: label kept (text-safe on the theme's base)
QColor ignored();     // grey: -100
QColor padding();     // orange: pad position
QColor gradedPad();   // red: pad that is graded (a bug)
QColor warningText(); // red text that passes contrast
QColor cellColour(CellState s);
// Glyph drawn in a grid cell when zoomed in, so the reason reads without colour.
QChar cellGlyph(CellState s);

} // namespace maskscope::palette
