// The colours every view uses for the same meaning, chosen to stay distinct for colour-blind
// readers (blue/orange contrast) and paired with a second cue (pattern or glyph) in each view.
// Two themes (light, dark); text colours are picked to pass WCAG 4.5:1 on the theme's base.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/CellClass.h"

#include <QColor>
#include <QPalette>
#include <QString>
#include <functional>

namespace maskscope::palette {

enum class Theme { Light, Dark };
Theme theme();
void setTheme(Theme t); // also applies the QPalette to the running QApplication
// Runs f with the colours of theme t (nothing else changes): a document with its own page colour,
// such as the HTML report's white page, reads the light colours whatever the app's theme.
void withTheme(Theme t, const std::function<void()>& f);
QPalette qtPalette(Theme t);                            // the widget palette of a theme
double contrastRatio(const QColor& a, const QColor& b); // WCAG 2.x relative-luminance ratio

QColor roleColour(PositionKind kind);
QColor graded();       // blue: label kept (text-safe on the theme's base)
QColor ignored();      // grey: -100
QColor padding();      // orange: pad position
QColor gradedPad();    // red: pad that is graded (a bug)
QColor warningText();  // red text that passes contrast
QColor maskedLmChip(); // a [MASK] chip's fill (the BERT aside): pale yellow, dark text reads on it
QColor cellColour(CellState s);
// Glyph drawn in a grid cell when zoomed in, so the reason reads without colour.
QChar cellGlyph(CellState s);
// The grid's classes: the mask's four states plus the allowed cells that are bugs (a pad key,
// another example's key), which are saturated and striped (stripe colour; invalid = no stripes).
QColor cellClassColour(CellClass c);
QColor cellClassStripe(CellClass c);
QChar cellClassGlyph(CellClass c);
QColor padQueryGrey();                     // pad query rows (outputs nobody reads) are mixed towards this ...
QColor greyedForPadQuery(const QColor& c); // ... 40 %, so their class still reads
QColor diffColour();                       // compare: cells that differ between the two collators
QColor specialStrip();                     // the grid's kind strips: a template / special token
QColor probabilityLow();                   // probability 0 on the colour scale (the theme's base)
QColor probabilityHigh();                  // probability 1 on the colour scale
QColor mix(const QColor& a, const QColor& b, double t); // (1 - t) a + t b
// A colour's everyday name from its hue and lightness ("orange", "light yellow", "dark blue", "grey"),
// so a text that names a colour reads it from the palette instead of typing it.
QString colourWord(const QColor& c);

} // namespace maskscope::palette
