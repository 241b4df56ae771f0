// Grid rendering: colours from the palette; a downsampled region (more than 4 keys per pixel) is
// counted exactly along the keys, run by run, else averaged over up to 4 x 4 sampled cells.
#include "ui/views/attention/GridRenderer.h"
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

// One cell's colour: its class (probabilities for allowed cells), greyed on pad query rows whose
// output nothing reads (RowAnatomy::unreadPadQuery), tinted
// where the compared grid differs. stripe: the output pixel lies on a stripe of the pattern.
QRgb cellRgb(const GridSource& src, int64_t q, int64_t k, bool stripe, const QRgb* classes, const QRgb* stripes) {
  const CellClass c = src.classify(q, k);
  QRgb rgb = classes[int(c)];
  if (src.probs && c == CellClass::Allowed) rgb = probabilityColour((*src.probs)[size_t(q * src.size() + k)]).rgb();
  if (stripe && qAlpha(stripes[int(c)]) != 0) rgb = stripes[int(c)];
  if (src.unreadPadQuery(q)) rgb = palette::greyedForPadQuery(QColor(rgb)).rgb(); // a graded pad row stays vivid
  if (src.differs(q, k)) rgb = palette::mix(QColor(rgb), palette::diffColour(), 0.65).rgb();
  return rgb;
}

// First position after k whose per-position facts (mask segment, padding, example) differ from
// k's: within [k, runEnd[k]) a query's cell class changes only at the causal and window edges.
std::vector<int64_t> runEnds(const GridSource& src) {
  const int64_t n = src.size();
  std::vector<int64_t> end(size_t(n), n);
  auto same = [&](int64_t a, int64_t b) {
    return src.maskSegments[size_t(a)] == src.maskSegments[size_t(b)] &&
           (src.padding.empty() || src.padding[size_t(a)] == src.padding[size_t(b)]) &&
           (src.example.empty() || src.example[size_t(a)] == src.example[size_t(b)]);
  };
  for (int64_t k = n - 2; k >= 0; --k) end[size_t(k)] = same(k, k + 1) ? end[size_t(k + 1)] : k + 1;
  return end;
}

// Exact counts along the keys: every key of every output column, run by run (runEnds), for up to
// 4 sampled queries per output row; a pixel is its cells' mean colour. Without probabilities, a
// 4-D mask or a compared grid (those are read cell by cell). O(sampled queries x (columns + runs)).
void renderCounted(const GridSource& src, QRect cells, QImage& img, const QRgb* classes, const QRgb* stripes) {
  const std::vector<int64_t> runEnd = runEnds(src);
  const int w = img.width(), h = img.height();
  std::vector<int64_t> colB(size_t(w) + 1);
  for (int x = 0; x <= w; ++x) colB[size_t(x)] = cells.left() + int64_t(cells.width()) * x / w;
  std::vector<int64_t> counts(size_t(w) * kCellClassCount);
  std::vector<int64_t> rgb(size_t(w) * 3);
  std::vector<int64_t> cellsPerPixel(static_cast<size_t>(w));
  for (int y = 0; y < h; ++y) {
    const int64_t b = cells.top() + int64_t(cells.height()) * y / h;
    const int64_t e = std::max(b + 1, cells.top() + int64_t(cells.height()) * (y + 1) / h);
    int64_t qs[4];
    const int nq = samples(b, e, qs);
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(y));
    std::fill(rgb.begin(), rgb.end(), 0);
    std::fill(cellsPerPixel.begin(), cellsPerPixel.end(), 0);
    for (int i = 0; i < nq; ++i) {
      const int64_t q = qs[i];
      std::fill(counts.begin(), counts.end(), 0);
      for (int x = 0; x < w; ++x) {
        for (int64_t k = colB[size_t(x)], end = std::max(colB[size_t(x)] + 1, colB[size_t(x) + 1]); k < end;) {
          int64_t stop = std::min(end, runEnd[size_t(k)]);
          if (k <= q) stop = std::min(stop, q + 1);                                             // the causal edge
          if (src.window > 0 && q - k >= src.window) stop = std::min(stop, q - src.window + 1); // the window edge
          counts[size_t(x) * kCellClassCount + size_t(src.classify(q, k))] += stop - k;
          k = stop;
        }
      }
      const bool greyed = src.unreadPadQuery(q);
      for (int x = 0; x < w; ++x) {
        const bool stripe = (x + y) % 6 < 2;
        for (int c = 0; c < kCellClassCount; ++c) {
          const int64_t m = counts[size_t(x) * kCellClassCount + size_t(c)];
          if (m == 0) continue;
          QRgb col = stripe && qAlpha(stripes[c]) != 0 ? stripes[c] : classes[c];
          if (greyed) col = palette::greyedForPadQuery(QColor(col)).rgb();
          rgb[size_t(x) * 3] += m * qRed(col);
          rgb[size_t(x) * 3 + 1] += m * qGreen(col);
          rgb[size_t(x) * 3 + 2] += m * qBlue(col);
          cellsPerPixel[size_t(x)] += m;
        }
      }
    }
    for (int x = 0; x < w; ++x) {
      const int64_t m = std::max<int64_t>(1, cellsPerPixel[size_t(x)]);
      line[x] = qRgb(int(rgb[size_t(x) * 3] / m), int(rgb[size_t(x) * 3 + 1] / m), int(rgb[size_t(x) * 3 + 2] / m));
    }
  }
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
  if (!checked.probs && !checked.diff && checked.maskCells.empty() && cells.width() > 4 * out.width()) {
    renderCounted(checked, cells, img, classes, stripes);
    return img;
  }

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

// Strip colour of one position: pad, special (template) token, or the example it belongs to; on the
// query strip a pad whose output the loss grades is the graded-pad red (the bug, as in the token strip).
QColor stripColour(const GridSource& s, int64_t t, bool query) {
  if (query && s.gradedPadQuery(t)) return palette::gradedPad();
  if (s.padQuery(t)) return palette::padding();
  if (!s.special.empty() && s.special[size_t(t)]) return palette::specialStrip();
  static const QColor examples[] = {QColor(0x43, 0x93, 0xc3), QColor(0x5a, 0xae, 0x61), QColor(0x99, 0x70, 0xab),
                                    QColor(0xbf, 0x81, 0x2d)};
  const int64_t e = s.example.empty() ? 1 : s.example[size_t(t)];
  return examples[size_t(std::max<int64_t>(0, e - 1) % 4)];
}

} // namespace maskscope
