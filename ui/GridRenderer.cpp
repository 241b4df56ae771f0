// Grid rendering: sampled averaging per output pixel, colours from the palette.
#include "ui/GridRenderer.h"
#include "ui/Palette.h"

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

QRgb probColour(float p, const QColor& allowed, const QColor& base) {
  // sqrt stretches the small probabilities most rows hold, so structure shows.
  const double a = std::sqrt(std::clamp(double(p), 0.0, 1.0));
  return qRgb(int(base.red() + (allowed.red() - base.red()) * a),
              int(base.green() + (allowed.green() - base.green()) * a),
              int(base.blue() + (allowed.blue() - base.blue()) * a));
}

} // namespace

QImage renderGridRegion(const GridSource& src, QRect cells, QSize out) {
  const int64_t n = src.size();
  cells = cells.intersected(QRect(0, 0, int(n), int(n)));
  if (cells.isEmpty() || out.isEmpty()) return {};
  QImage img(out, QImage::Format_RGB32);
  QRgb colours[4];
  for (int s = 0; s < 4; ++s) colours[s] = palette::cellColour(CellState(s)).rgb();
  const QColor allowed = palette::cellColour(CellState::Allowed);
  const QColor white(0xff, 0xff, 0xff);
  const bool withProbs = src.probs && int64_t(src.probs->size()) == n * n;

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
      for (int i = 0; i < nq; ++i)
        for (int j = 0; j < nk; ++j) {
          const CellState s = src.state(qs[i], ks[j]);
          QRgb c = colours[int(s)];
          if (withProbs && s == CellState::Allowed)
            c = probColour((*src.probs)[size_t(qs[i] * n + ks[j])], allowed, white);
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

} // namespace maskscope
