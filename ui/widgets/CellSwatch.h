// The small square that stands for one attention-cell class wherever a legend shows it (the grid's
// legend, the F1 help): the class's colour, its stripes when the grid hatches it, its glyph; greyed
// as the grid greys a pad query row whose output nothing reads. Painted from the palette's theme.
#pragma once
#include "core/mask/CellClass.h"

#include <QImage>
#include <QString>

namespace maskscope {

QImage cellClassSwatch(CellClass c, bool greyed = false, int size = 18);
// "swatch:allowed pad" / "swatch:allowed:greyed": the name a text document's image resource takes.
QString cellClassSwatchName(CellClass c, bool greyed = false);

} // namespace maskscope
