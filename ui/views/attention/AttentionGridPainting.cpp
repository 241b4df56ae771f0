// Attention grid painting: the cells (rendered per visible region and cached), hatching, glyphs, strips,
// axes, overlays, the probability scale and the caption.
#include "ui/shell/Session.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/GridMetrics.h"
#include "ui/widgets/Palette.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace maskscope {

using namespace gridmetrics;

QImage AttentionGridCanvas::imageFor(QRect cells, QSize px) const {
  const bool whole = cells == QRect(0, 0, int(source_.size()), int(source_.size()));
  // A cell covers at least a pixel both ways: render cells 1:1 (the painter scales, hatches).
  const bool oneToOne = cells.width() <= px.width() && cells.height() <= px.height();
  const QSize out = oneToOne ? cells.size() : px;
  if (whole && overview_.size() == out) return overview_;
  const QString key = QStringLiteral("%1,%2,%3,%4/%5x%6")
                          .arg(cells.x())
                          .arg(cells.y())
                          .arg(cells.width())
                          .arg(cells.height())
                          .arg(out.width())
                          .arg(out.height());
  if (QImage* hit = zoomCache_.object(key)) return *hit;
  QImage img = renderGridRegion(source_, cells, out);
  if (whole)
    overview_ = img;
  else
    zoomCache_.insert(key, new QImage(img), 1);
  return img;
}

double AttentionGridCanvas::Frame::x(double key) const { return plot.left() + (key - viewLeft) * cellW; }
double AttentionGridCanvas::Frame::y(double query) const { return plot.top() + (query - viewTop) * cellH; }

void AttentionGridCanvas::render(QPainter& p, QRect area) const {
  p.fillRect(area, palette().window());
  const int64_t n = source_.size();
  if (n == 0) {
    p.setPen(palette().text().color());
    p.drawText(area, Qt::AlignCenter, tr("No batch"));
    return;
  }
  Frame f;
  f.plot = plotRect(area);
  f.cellW = f.plot.width() / view_.width();
  f.cellH = f.plot.height() / view_.height();
  f.viewLeft = view_.left();
  f.viewTop = view_.top();
  // Integer cells covering the view; the image is drawn with the fractional offset.
  f.cx0 = int(std::floor(view_.left()));
  f.cy0 = int(std::floor(view_.top()));
  f.cx1 = int(std::min<double>(double(n), std::ceil(view_.right())));
  f.cy1 = int(std::min<double>(double(n), std::ceil(view_.bottom())));
  paintCells(p, f);
  paintStrips(p, f);
  paintAxes(p, f);
  paintScale(p, f);
  paintCaption(p, area, boundariesDrawn(f));
  p.setPen(palette().text().color());
  p.setBrush(Qt::NoBrush);
  p.drawRect(f.plot.adjusted(0, 0, -1, -1));
}

bool AttentionGridCanvas::boundariesDrawn(const Frame& f) const {
  const auto first = std::lower_bound(segmentStarts_.begin(), segmentStarts_.end(), int64_t(f.cx0));
  const auto last = std::lower_bound(first, segmentStarts_.end(), int64_t(f.cx1));
  return double(last - first) * 8.0 <= double(f.plot.width());
}

void AttentionGridCanvas::paintCaption(QPainter& p, QRect area, bool boundariesDrawn) const {
  const int64_t n = source_.size();
  QFont caption = font();
  caption.setPixelSize(scaled(12));
  p.setFont(caption);
  p.setPen(palette().text().color());
  const int64_t examples = exampleCount();
  p.drawText(QRect(area.left() + 4, area.top() + 2, area.width() - 8, scaled(16)), Qt::AlignLeft,
             tr("keys \u2192   queries \u2193   %1 x %2%3%4%5")
                 .arg(n)
                 .arg(n)
                 .arg(layerText_.isEmpty() ? QString() : QStringLiteral("   ") + layerText_)
                 .arg(examples <= 1     ? QString()
                      : boundariesDrawn ? tr("   %1 packed examples (dashed)").arg(examples)
                                        : tr("   %1 packed examples (zoom in to see their boundaries)").arg(examples))
                 .arg(probs_.empty() ? QString() : QStringLiteral("   ") + probsLabel_));
  if (!startView_.isEmpty() && view_ == startView_) {
    const int64_t pads = int64_t(std::count(source_.padding.begin(), source_.padding.end(), uint8_t(1)));
    // The long form where it fits, else the short one (a narrow centre: presenter mode's teaching steps).
    const QRect line(area.left() + 4, area.top() + scaled(18), area.width() - 8, scaled(16));
    QString text =
        tr("zoomed to the %1 real tokens; %2 pads folded (double-click: all %3)").arg(n - pads).arg(pads).arg(n);
    if (p.fontMetrics().horizontalAdvance(text) > line.width())
      text = tr("%1 real tokens, %2 pads folded (double-click: all)").arg(n - pads).arg(pads);
    p.drawText(line, Qt::AlignLeft, p.fontMetrics().elidedText(text, Qt::ElideRight, line.width()));
  } else if (view_.width() < double(n) || view_.height() < double(n))
    p.drawText(QRect(area.left() + 4, area.top() + scaled(18), area.width() - 8, scaled(16)), Qt::AlignLeft,
               tr("zoom %1x (double-click: fit)").arg(double(n) / std::min(view_.width(), view_.height()), 0, 'f', 1));
}

void AttentionGridCanvas::paintCells(QPainter& p, const Frame& f) const {
  const QRect g = f.plot;
  const QRect cells(f.cx0, f.cy0, std::max(1, f.cx1 - f.cx0), std::max(1, f.cy1 - f.cy0));
  const QImage img = imageFor(cells, g.size());
  p.save();
  p.setClipRect(g);
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  const double sx = double(img.width()) / cells.width(), sy = double(img.height()) / cells.height();
  const QRectF src((view_.left() - f.cx0) * sx, (view_.top() - f.cy0) * sy, view_.width() * sx, view_.height() * sy);
  p.drawImage(QRectF(g), img, src);
  if (img.size() == cells.size()) paintHatching(p, f);
  // Cell borders once cells are big enough to tell apart.
  if (std::min(f.cellW, f.cellH) >= 6) {
    p.setPen(QColor(255, 255, 255, 110));
    for (int i = f.cx0; i <= f.cx1; ++i) p.drawLine(QPointF(f.x(i), g.top()), QPointF(f.x(i), g.bottom()));
    for (int i = f.cy0; i <= f.cy1; ++i) p.drawLine(QPointF(g.left(), f.y(i)), QPointF(g.right(), f.y(i)));
  }
  if (std::min(f.cellW, f.cellH) >= kLabelCell) paintGlyphs(p, f);
  paintOverlays(p, f);
  p.restore();
}

void AttentionGridCanvas::paintHatching(QPainter& p, const Frame& f) const {
  // Runs of allowed-but-wrong cells per visible query row, hatched in the class's stripe colour.
  p.setPen(Qt::NoPen);
  for (int q = f.cy0; q < f.cy1; ++q)
    for (int k = f.cx0; k < f.cx1;) {
      const CellClass c = source_.classify(q, k);
      int e = k + 1;
      while (e < f.cx1 && source_.classify(q, e) == c) ++e;
      const QColor stripe = palette::cellClassStripe(c);
      if (stripe.isValid()) {
        const QColor shown = source_.unreadPadQuery(q) ? palette::greyedForPadQuery(stripe) : stripe;
        p.setBrush(QBrush(shown, Qt::BDiagPattern));
        p.drawRect(QRectF(f.x(k), f.y(q), (e - k) * f.cellW, f.cellH));
      }
      k = e;
    }
}

void AttentionGridCanvas::paintGlyphs(QPainter& p, const Frame& f) const {
  QFont font = this->font();
  font.setPixelSize(int(std::min(std::min(f.cellW, f.cellH) * 0.6, 18.0)));
  font.setBold(true);
  p.setFont(font);
  for (int q = f.cy0; q < f.cy1; ++q)
    for (int k = f.cx0; k < f.cx1; ++k) {
      const CellClass c = source_.classify(q, k);
      // Glyph contrast from the cell's own colour (dark theme's future cells are dark too).
      const QColor bg = palette::cellClassColour(c);
      p.setPen(c == CellClass::Allowed || bg.lightness() < 128 ? QColor(0xf0, 0xf0, 0xf0) : QColor(0x30, 0x30, 0x30));
      p.drawText(QRectF(f.x(k), f.y(q), f.cellW, f.cellH), Qt::AlignCenter, QString(palette::cellClassGlyph(c)));
    }
}

void AttentionGridCanvas::paintOverlays(QPainter& p, const Frame& f) const {
  const QRect g = f.plot;
  const int64_t n = source_.size();
  // Packed rows: the example boundaries, in both directions (not where they would cover the cells).
  if (!segmentStarts_.empty() && boundariesDrawn(f)) {
    QPen pen(palette().text().color());
    pen.setWidth(2);
    pen.setStyle(Qt::DashLine);
    p.setPen(pen);
    for (int64_t s : segmentStarts_) {
      p.drawLine(QPointF(f.x(double(s)), g.top()), QPointF(f.x(double(s)), g.bottom()));
      p.drawLine(QPointF(g.left(), f.y(double(s))), QPointF(g.right(), f.y(double(s))));
    }
  }
  p.setBrush(Qt::NoBrush);
  if (highlightedQuery_ >= 0 && highlightedQuery_ < n) {
    QPen pen(palette().highlight().color());
    pen.setWidth(2);
    p.setPen(pen);
    p.drawRect(QRectF(g.left(), f.y(highlightedQuery_), g.width(), std::max(2.0, f.cellH)));
  }
  // The keyboard focus cell: a thick frame in the text colour around a thin one in the base colour,
  // so it shows on every cell colour.
  if (hasFocus() && focusCell_.x() >= 0 && focusCell_.y() >= 0) {
    const QRectF cell(f.x(focusCell_.x()), f.y(focusCell_.y()), std::max(3.0, f.cellW), std::max(3.0, f.cellH));
    p.setPen(QPen(palette().text().color(), 3));
    p.drawRect(cell.adjusted(-2, -2, 2, 2));
    p.setPen(QPen(palette().base().color(), 1));
    p.drawRect(cell.adjusted(-3.5, -3.5, 3.5, 3.5));
  }
}

void AttentionGridCanvas::paintStrips(QPainter& p, const Frame& f) const {
  // One colour per position (pad, special, example); runs of equal colour in one rectangle.
  const QRect g = f.plot;
  const QRect top(g.left(), g.top() - kStrip, g.width(), kStrip - 2);
  const QRect left(g.left() - kStrip, g.top(), kStrip - 2, g.height());
  p.save();
  p.setPen(Qt::NoPen);
  auto strip = [&](bool keys) {
    const int pixels = keys ? g.width() : g.height();
    const double cell = keys ? f.cellW : f.cellH, origin = keys ? f.viewLeft : f.viewTop;
    int start = 0;
    QColor run;
    for (int px = 0; px <= pixels; ++px) {
      QColor c;
      if (px < pixels) {
        const int64_t t = std::min<int64_t>(source_.size() - 1, int64_t(origin + (px + 0.5) / cell));
        c = stripColour(source_, t, !keys);
      }
      if (px == pixels || c != run) {
        if (px > start && run.isValid()) {
          p.setBrush(run);
          p.drawRect(keys ? QRect(top.left() + start, top.top(), px - start, top.height())
                          : QRect(left.left(), left.top() + start, left.width(), px - start));
        }
        start = px;
        run = c;
      }
    }
  };
  strip(true);
  strip(false);
  p.restore();
}

void AttentionGridCanvas::paintScale(QPainter& p, const Frame& f) const {
  if (probs_.empty()) return;
  // Vertical bar right of the grid: probability 1 at the top, 0 at the bottom, on the sqrt scale
  // the cells use, with ticks at the probabilities they stand for.
  const QRect bar(f.plot.right() + 8, f.plot.top(), 12, std::max(20, f.plot.height()));
  for (int y = 0; y < bar.height(); ++y) {
    const double a = 1.0 - double(y) / std::max(1, bar.height() - 1);
    p.setPen(probabilityColour(a * a));
    p.drawLine(bar.left(), bar.top() + y, bar.right(), bar.top() + y);
  }
  p.setPen(palette().text().color());
  p.setBrush(Qt::NoBrush);
  p.drawRect(bar.adjusted(0, 0, -1, -1));
  QFont small = font();
  small.setPixelSize(scaled(10));
  p.setFont(small);
  for (double prob : {1.0, 0.25, 0.01, 0.0}) {
    const int y = bar.top() + int((1.0 - std::sqrt(prob)) * (bar.height() - 1));
    p.drawLine(bar.right(), y, bar.right() + 3, y);
    p.drawText(QRect(bar.right() + 4, y - scaled(6), scaled(kScale) - 24, scaled(12)), Qt::AlignLeft | Qt::AlignVCenter,
               QString::number(prob));
  }
}

void AttentionGridCanvas::paintAxes(QPainter& p, const Frame& f) const {
  const QRect g = f.plot;
  const int cx0 = f.cx0, cy0 = f.cy0, cx1 = f.cx1, cy1 = f.cy1;
  auto toX = [&](double k) { return f.x(k); };
  auto toY = [&](double q) { return f.y(q); };
  // Axes: token labels when zoomed in, position ticks otherwise.
  const Batch* b = batch();
  p.setPen(palette().text().color());
  QFont small = font();
  small.setPixelSize(scaled(11));
  p.setFont(small);
  const bool rowLabels = f.cellH >= labelCell() && b, columnLabels = f.cellW >= labelCell() && b;
  if (rowLabels || columnLabels) {
    // The selected position's labels (query row and key column) in bold highlight colour.
    QFont selected = small;
    selected.setBold(true);
    auto labelStyle = [&](int position) {
      const bool sel = position == highlightedQuery_;
      p.setFont(sel ? selected : small);
      p.setPen(sel ? palette().highlight().color() : palette().text().color());
    };
    for (int q = cy0; q < cy1 && rowLabels; ++q) {
      QRectF r(g.left() - scaled(kLeft) - kStrip + 2, toY(q), scaled(kLeft) - 6, f.cellH);
      // Labels of rows only partly on screen would spill over the caption or below the grid.
      if (r.center().y() < g.top() || r.center().y() > g.bottom()) continue;
      labelStyle(q);
      p.drawText(r, Qt::AlignRight | Qt::AlignVCenter,
                 QStringLiteral("%1 %2").arg(shortToken(session_->tokenText(b->inputIds.at(row(), q)), 9)).arg(q));
    }
    for (int k = cx0; k < cx1 && columnLabels; ++k) {
      const double x = toX(k), cell = f.cellW;
      if (x + cell / 2 < g.left() || x + cell / 2 > g.right()) continue;
      labelStyle(k);
      p.save();
      p.translate(x + cell / 2 + 4, g.top() - kStrip - 4);
      p.rotate(-90);
      p.drawText(QRectF(0, -cell / 2 - 4, scaled(kTop) - 8, cell), Qt::AlignLeft | Qt::AlignVCenter,
                 QStringLiteral("%1 %2").arg(k).arg(shortToken(session_->tokenText(b->inputIds.at(row(), k)), 9)));
      p.restore();
    }
    p.setFont(small);
    p.setPen(palette().text().color());
  }
  // Position numbers on the axes that have no token labels.
  if (!columnLabels) {
    const int step = niceStep(40.0 * labelScale_ / f.cellW);
    for (int64_t i = (int64_t(view_.left()) / step) * step; i <= int64_t(view_.right()); i += step) {
      const double x = toX(double(i) + 0.5);
      if (x < g.left() || x > g.right()) continue;
      p.drawLine(QPointF(x, g.top() - kStrip - 4), QPointF(x, g.top() - kStrip));
      p.drawText(QRectF(x - scaled(30), g.top() - kStrip - scaled(20), scaled(60), scaled(14)), Qt::AlignCenter,
                 QString::number(i));
    }
  }
  if (!rowLabels) {
    const int step = niceStep(20.0 * labelScale_ / f.cellH);
    for (int64_t i = (int64_t(view_.top()) / step) * step; i <= int64_t(view_.bottom()); i += step) {
      const double y = toY(double(i) + 0.5);
      if (y < g.top() || y > g.bottom()) continue;
      p.drawLine(QPointF(g.left() - kStrip - 4, y), QPointF(g.left() - kStrip, y));
      p.drawText(QRectF(g.left() - kStrip - scaled(kLeftTicks), y - scaled(7), scaled(kLeftTicks) - 8, scaled(14)),
                 Qt::AlignRight | Qt::AlignVCenter, QString::number(i));
    }
  }
}

} // namespace maskscope
