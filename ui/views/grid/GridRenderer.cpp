// Grid rendering: sampled averaging per output pixel, colours from the palette.
#include "ui/views/grid/GridRenderer.h"
#include "ui/widgets/Palette.h"

#include <algorithm>
#include <cmath>

namespace maskscope {

namespace {

// Up to 4 sample indices spread evenly over [begin, end).
int samples(int64_t begin, int64_t end, int64_t out[4]) {
  const int64_t span = std::max<int64_t>(1, end - begin);
  const int n = int(std::min<int64_t>(4, span));
  for (int i = 0; i < n; ++i) out[i] = begin + (span * (2 * i + 1)) / (2 * n);
  return n;
}

// One cell's colour: its class (probabilities for allowed cells), greyed on pad query rows, tinted
// where the compared grid differs. stripe: the output pixel lies on a stripe of the pattern.
QRgb cellRgb(const GridSource& src, int64_t q, int64_t k, bool stripe, const QRgb* classes, const QRgb* stripes) {
  const CellClass c = src.classify(q, k);
  QRgb rgb = classes[int(c)];
  if (src.probs && c == CellClass::Allowed) rgb = probabilityColour((*src.probs)[size_t(q * src.size() + k)]).rgb();
  if (stripe && qAlpha(stripes[int(c)]) != 0) rgb = stripes[int(c)];
  if (src.padQuery(q)) rgb = palette::greyedForPadQuery(QColor(rgb)).rgb();
  if (src.differs(q, k)) rgb = palette::mix(QColor(rgb), palette::diffColour(), 0.65).rgb();
  return rgb;
}

} // namespace

QImage renderGridRegion(const GridSource& src, QRect cells, QSize out) {
  const int64_t n = src.size();
  cells = cells.intersected(QRect(0, 0, int(n), int(n)));
  if (cells.isEmpty() || out.isEmpty()) return {};
  QImage img(out, QImage::Format_RGB32);
  QRgb classes[kCellClassCount], stripes[kCellClassCount];
  for (int c = 0; c < kCellClassCount; ++c) {
    classes[c] = palette::cellClassColour(CellClass(c)).rgb();
    const QColor st = palette::cellClassStripe(CellClass(c));
    stripes[c] = st.isValid() ? st.rgb() : qRgba(0, 0, 0, 0);
  }
  GridSource checked = src;
  if (checked.probs && int64_t(checked.probs->size()) != n * n) checked.probs = nullptr;
  // Stripes only where an output pixel is a screen pixel (the caller hatches scaled-up cells).
  const bool pixelStripes = out.width() < cells.width() || out.height() < cells.height();

  // Sample positions per output column (keys) and row (queries).
  std::vector<int64_t> colS(size_t(out.width()) * 4), rowS(size_t(out.height()) * 4);
  std::vector<int> colN(size_t(out.width())), rowN(size_t(out.height()));
  for (int x = 0; x < out.width(); ++x) {
    const int64_t b = cells.left() + int64_t(cells.width()) * x / out.width();
    const int64_t e = std::max(b + 1, cells.left() + int64_t(cells.width()) * (x + 1) / out.width());
    colN[size_t(x)] = samples(b, e, &colS[size_t(x) * 4]);
  }
  for (int y = 0; y < out.height(); ++y) {
    const int64_t b = cells.top() + int64_t(cells.height()) * y / out.height();
    const int64_t e = std::max(b + 1, cells.top() + int64_t(cells.height()) * (y + 1) / out.height());
    rowN[size_t(y)] = samples(b, e, &rowS[size_t(y) * 4]);
  }
  for (int y = 0; y < out.height(); ++y) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(y));
    const int64_t* qs = &rowS[size_t(y) * 4];
    const int nq = rowN[size_t(y)];
    for (int x = 0; x < out.width(); ++x) {
      const int64_t* ks = &colS[size_t(x) * 4];
      const int nk = colN[size_t(x)];
      int r = 0, g = 0, b = 0;
      const bool stripe = pixelStripes && (x + y) % 6 < 2;
      for (int i = 0; i < nq; ++i)
        for (int j = 0; j < nk; ++j) {
          const QRgb c = cellRgb(checked, qs[i], ks[j], stripe, classes, stripes);
          r += qRed(c);
          g += qGreen(c);
          b += qBlue(c);
        }
      const int m = nq * nk;
      line[x] = qRgb(r / m, g / m, b / m);
    }
  }
  return img;
}

QColor probabilityColour(double p) {
  // sqrt stretches the small probabilities most rows hold, so structure shows.
  return palette::mix(palette::probabilityLow(), palette::probabilityHigh(), std::sqrt(std::clamp(p, 0.0, 1.0)));
}

} // namespace maskscope
