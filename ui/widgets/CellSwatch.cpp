// Cell swatches, painted as the grid paints the class (colour, stripes, glyph).
#include "ui/widgets/CellSwatch.h"
#include "ui/widgets/Palette.h"

#include <QPainter>

namespace maskscope {

QImage cellClassSwatch(CellClass c, bool greyed, int size) {
  QColor colour = palette::cellClassColour(c);
  QColor stripe = palette::cellClassStripe(c);
  if (greyed) {
    colour = palette::greyedForPadQuery(colour);
    if (stripe.isValid()) stripe = palette::greyedForPadQuery(stripe);
  }
  QImage img(size, size, QImage::Format_RGB32);
  img.fill(colour);
  QPainter p(&img);
  if (stripe.isValid()) p.fillRect(img.rect(), QBrush(stripe, Qt::BDiagPattern));
  p.setPen(QColor(0x66, 0x66, 0x66));
  p.drawRect(img.rect().adjusted(0, 0, -1, -1));
  QFont f = p.font();
  f.setBold(true);
  f.setPixelSize(size * 2 / 3);
  p.setFont(f);
  p.setPen(c == CellClass::Allowed || colour.lightness() < 128 ? QColor(0xf0, 0xf0, 0xf0) : QColor(0x22, 0x22, 0x22));
  p.drawText(img.rect(), Qt::AlignCenter, QString(palette::cellClassGlyph(c)));
  p.end();
  return img;
}

QString cellClassSwatchName(CellClass c, bool greyed) {
  return QStringLiteral("swatch:%1%2")
      .arg(QString::fromLatin1(cellClassName(c)), greyed ? QStringLiteral(":greyed") : QString());
}

} // namespace maskscope
