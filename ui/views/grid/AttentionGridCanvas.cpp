// Attention grid painting, zoom/pan and hit testing.
#include "ui/views/grid/AttentionGridCanvas.h"
#include "core/util/Utf8.h"
#include "ui/shell/Session.h"
#include "ui/widgets/Palette.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace maskscope {

namespace {
constexpr int kLeft = 92;           // room for query token labels (a 9-character token and its index at 11 px)
constexpr int kTop = 90;            // room for key token labels (the selected one in bold)
constexpr int kLeftTicks = 48;      // zoomed out only numbers are drawn: give the grid the room
constexpr int kTopTicks = 52;       // the two caption lines, then the numbers
constexpr double kLabelCell = 13.0; // cells at least this big get token labels and glyphs
constexpr int kStrip = 10;          // the kind strips along the top and left of the grid
constexpr int kScale = 54;          // room on the right for the probability colour scale

QString shortToken(const QString& t, int max = 9) {
  QString v = QString::fromStdString(utf8::visibleWhitespace(t.toStdString()));
  // Special tokens such as <|im_start|> / <|im_end|> are told apart by their middle, which
  // truncation cut off ("<|im_e..."): show them as the strip does, a diamond and the name.
  if (v.size() > 4 && v.startsWith(QLatin1String("<|")) && v.endsWith(QLatin1String("|>")))
    v = QChar(0x25C6) + v.mid(2, v.size() - 4);
  return v.size() > max ? v.left(max - 1) + QChar(0x2026) : v;
}

int niceStep(double cellsPerLabel) {
  static const int steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
  for (int s : steps)
    if (s >= cellsPerLabel) return s;
  return 10000;
}
} // namespace

AttentionGridCanvas::AttentionGridCanvas(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  // The least size is minimumSizeHint(): its margins and 100 px of cells, so the window never cuts it off.
  setAttribute(Qt::WA_OpaquePaintEvent);
  connect(session_, &Session::batchChanged, this, [this] {
    if (!override_) rebuild();
  });
  connect(session_, &Session::positionChanged, this, &AttentionGridCanvas::setHighlightedQuery);
  rebuild();
}

const Batch* AttentionGridCanvas::batch() const {
  if (override_) return override_;
  return session_->hasBatch() ? &session_->batch() : nullptr;
}
int AttentionGridCanvas::row() const { return override_ ? overrideRow_ : session_->batchRow(); }

void AttentionGridCanvas::setBatchOverride(const Batch* b, int r) {
  override_ = b;
  overrideRow_ = r;
  rebuild();
}

void AttentionGridCanvas::rebuild() {
  source_ = GridSource();
  source_.diff = diffSource_;
  source_.diffShift = diffShift_;
  probs_.clear();
  probsLabel_.clear();
  segmentStarts_.clear();
  overview_ = QImage();
  zoomCache_.clear();
  const Batch* b = batch();
  if (b && row() >= 0 && row() < b->batchSize()) {
    try {
      const EffectiveMask* effective = override_ ? nullptr : session_->effectiveMask(); // View > Attention impl.
      static_cast<RowAnatomy&>(source_) =
          effective ? rowAnatomy(*b, row(), *effective, window_) : rowAnatomy(*b, row(), MaskSemantics::Eager, window_);
    } catch (const std::exception&) {
      source_ = GridSource();
    }
    // Boundaries wherever the row reveals its examples: collator segments, segment ids, resets.
    segmentStarts_ = source_.exampleStarts();
  }
  view_ = QRectF(0, 0, double(source_.size()), double(source_.size()));
  highlightedQuery_ = session_->selectedPosition() < source_.size() ? session_->selectedPosition() : -1;
  focusCell_ = highlightedQuery_ >= 0 ? QPoint(0, highlightedQuery_) : QPoint(-1, -1);
  update();
  Q_EMIT viewChanged();
}

void AttentionGridCanvas::setProbabilities(std::vector<float> probs, const QString& label) {
  const int64_t n = source_.size();
  if (!probs.empty() && int64_t(probs.size()) != n * n) return;
  probs_ = std::move(probs);
  probsLabel_ = label;
  source_.probs = probs_.empty() ? nullptr : &probs_;
  overview_ = QImage();
  zoomCache_.clear();
  update();
}

void AttentionGridCanvas::setLayerAttention(int64_t window, const QString& text) {
  layerText_ = text;
  if (window == window_) return update();
  window_ = std::max<int64_t>(0, window);
  rebuild();
}

void AttentionGridCanvas::setDiffSource(const GridSource* other, int64_t shift) {
  diffSource_ = other;
  diffShift_ = shift;
  source_.diff = other;
  source_.diffShift = shift;
  overview_ = QImage();
  zoomCache_.clear();
  update();
}

int64_t AttentionGridCanvas::exampleCount() const {
  return source_.size() == 0 ? 0 : int64_t(segmentStarts_.size()) + 1;
}

void AttentionGridCanvas::setHighlightedQuery(int query) {
  highlightedQuery_ = query < source_.size() ? query : -1;
  if (highlightedQuery_ >= 0) focusCell_.setY(highlightedQuery_);
  if (highlightedQuery_ >= 0 && focusCell_.x() < 0) focusCell_.setX(0);
  update();
}

void AttentionGridCanvas::setViewRect(QRectF c) {
  const double n = double(source_.size());
  if (n <= 0) return;
  // Cells stay as square as the area allows: the view takes the area's aspect, each side at most
  // the whole grid (fitted, the grid fills the area and cells may be oblong).
  auto shaped = [&](const QRect& plot) {
    const double aspect = plot.height() > 0 ? double(plot.width()) / plot.height() : 1.0;
    double w = std::max(c.width(), 1e-9), h = std::max(c.height(), 1e-9);
    if (w / h < aspect)
      w = h * aspect;
    else
      h = w / aspect;
    return QSizeF(std::clamp(w, std::min(n, 4.0), n), std::clamp(h, std::min(n, 4.0), n));
  };
  // The margins depend on the zoom (token labels once cells are big): shape twice.
  const QRect narrow = plotRectWith(rect(), false, false);
  QSizeF size = shaped(narrow);
  size = shaped(plotRectWith(rect(), narrow.height() / size.height() >= labelCell(),
                             narrow.width() / size.width() >= labelCell()));
  const double w = size.width(), h = size.height();
  const QPointF centre = c.center();
  const double x = std::clamp(centre.x() - w / 2, 0.0, n - w);
  const double y = std::clamp(centre.y() - h / 2, 0.0, n - h);
  QRectF next(x, y, w, h);
  if (next == view_) return;
  view_ = next;
  update();
  Q_EMIT viewChanged();
}

void AttentionGridCanvas::zoomBy(double factor, QPointF around) {
  if (source_.size() <= 0 || factor <= 0) return;
  const double w = view_.width() / factor, h = view_.height() / factor;
  const double fx = (around.x() - view_.x()) / view_.width();
  const double fy = (around.y() - view_.y()) / view_.height();
  setViewRect(QRectF(around.x() - fx * w, around.y() - fy * h, w, h));
}

QSize AttentionGridCanvas::minimumSizeHint() const {
  const QRect plot = plotRectWith(QRect(0, 0, 1000, 1000), false, false);
  return {1000 - plot.width() + 100, 1000 - plot.height() + 100};
}

void AttentionGridCanvas::setLabelScale(double scale) {
  scale = std::clamp(scale, 1.0, 4.0);
  if (scale == labelScale_) return;
  labelScale_ = scale;
  updateGeometry(); // the least size follows the margins
  const QRectF keep = view_;
  view_ = QRectF(); // the margins changed: shape the same cells again
  if (keep.isValid()) setViewRect(keep);
  update();
}

void AttentionGridCanvas::fitAll() { setViewRect(QRectF(0, 0, double(source_.size()), double(source_.size()))); }

QRect AttentionGridCanvas::plotRectWith(QRect area, bool rowLabels, bool columnLabels) const {
  const int left = scaled(rowLabels ? kLeft : kLeftTicks) + kStrip;
  const int top = scaled(columnLabels ? kTop : kTopTicks) + kStrip;
  const int right = probs_.empty() ? 6 : scaled(kScale);
  return QRect(area.left() + left, area.top() + top, std::max(1, area.width() - left - right),
               std::max(1, area.height() - top - 6));
}

QRect AttentionGridCanvas::plotRect(QRect area) const {
  // Token labels need wide margins; numbers (zoomed out) narrow ones, so the grid keeps the room.
  const QRect narrow = plotRectWith(area, false, false);
  if (view_.width() <= 0) return narrow;
  const bool rows = narrow.height() / view_.height() >= labelCell();
  const bool columns = narrow.width() / view_.width() >= labelCell();
  return plotRectWith(area, rows, columns);
}

QSizeF AttentionGridCanvas::cellSize() const {
  if (view_.width() <= 0 || view_.height() <= 0) return {};
  const QRect g = plotRect(rect());
  return {g.width() / view_.width(), g.height() / view_.height()};
}

double AttentionGridCanvas::cellPixels() const {
  const QSizeF c = cellSize();
  return std::min(c.width(), c.height());
}

QPoint AttentionGridCanvas::cellAt(QPoint pos) const {
  if (source_.size() == 0) return {-1, -1};
  const QRect g = plotRect(rect());
  if (!g.contains(pos)) return {-1, -1};
  const int k = int(std::floor(view_.x() + (pos.x() - g.left()) * view_.width() / g.width()));
  const int q = int(std::floor(view_.y() + (pos.y() - g.top()) * view_.height() / g.height()));
  if (k < 0 || q < 0 || k >= source_.size() || q >= source_.size()) return {-1, -1};
  return {k, q};
}

QString AttentionGridCanvas::describeCell(int q, int k) const {
  const Batch* b = batch();
  if (!b || q < 0 || k < 0 || q >= source_.size() || k >= source_.size()) return {};
  const int r = row();
  QString why;
  switch (source_.classify(q, k)) {
  case CellClass::Allowed:
    why = tr("allowed: the query sees this key (mask adds 0)");
    break;
  case CellClass::Future:
    why = tr("blocked: the key is in the future (causal mask, adds -inf)");
    break;
  case CellClass::Padding:
    why = tr("blocked: the key is padding (attention_mask 0, adds -inf)");
    break;
  case CellClass::OtherExample:
    why = tr("blocked: the key belongs to another packed example (segment %1 vs %2, adds -inf)")
              .arg(source_.maskSegments[size_t(k)])
              .arg(source_.maskSegments[size_t(q)]);
    break;
  case CellClass::OutsideWindow:
    why = tr("blocked: sliding-window layer, the key is %1 positions back and the window sees the %2 most recent keys "
             "(query included; adds -inf)")
              .arg(q - k)
              .arg(source_.window);
    break;
  case CellClass::AllowedPad:
    why = tr("allowed, but this key is padding: the mask adds 0, so the query reads a pad");
    break;
  case CellClass::AllowedOtherExample:
    why = tr("allowed, but this key belongs to another example (example %1 vs %2): packing leaks")
              .arg(source_.example[size_t(k)])
              .arg(source_.example[size_t(q)]);
    break;
  }
  if (source_.unreadPadQuery(q))
    why += tr("\nthis query is padding and the loss reads none of its output (the label at %1 is -100): row greyed")
               .arg(q + 1);
  else if (source_.gradedPadQuery(q))
    why += tr("\nthis query is padding, yet its output is graded: the label at %1 reaches the loss, so the model is "
              "trained to predict from a pad (row not greyed)")
               .arg(q + 1);
  if (source_.differs(q, k))
    why += tr("\ndiffers from the other collator's grid (its query %1, key %2)")
               .arg(q + source_.diffShift)
               .arg(k + source_.diffShift);
  else if (source_.diff && !source_.hasCounterpart(q, k))
    why += tr("\nthe other collator's row has no such cell (rows aligned at their first real token): not compared");
  QString text = tr("query %1 \"%2\"\nkey %3 \"%4\"\n%5")
                     .arg(q)
                     .arg(shortToken(session_->tokenText(b->inputIds.at(r, q)), 40))
                     .arg(k)
                     .arg(shortToken(session_->tokenText(b->inputIds.at(r, k)), 40))
                     .arg(why);
  if (!probs_.empty())
    text += tr("\nattention probability %1 (%2)")
                .arg(double(probs_[size_t(q) * size_t(source_.size()) + size_t(k)]), 0, 'f', 4)
                .arg(probsLabel_);
  return text;
}

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
  paintCaption(p, area);
  p.setPen(palette().text().color());
  p.setBrush(Qt::NoBrush);
  p.drawRect(f.plot.adjusted(0, 0, -1, -1));
}

void AttentionGridCanvas::paintCaption(QPainter& p, QRect area) const {
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
                 .arg(examples > 1 ? tr("   %1 packed examples (dashed)").arg(examples) : QString())
                 .arg(probs_.empty() ? QString() : QStringLiteral("   ") + probsLabel_));
  if (view_.width() < double(n) || view_.height() < double(n))
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
  // Packed rows: the example boundaries, in both directions.
  if (!segmentStarts_.empty()) {
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

void AttentionGridCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, rect());
}

bool AttentionGridCanvas::event(QEvent* e) {
  if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange) {
    overview_ = QImage(); // cached images hold the previous theme's colours
    zoomCache_.clear();
  }
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    QPoint c = cellAt(he->pos());
    if (c.x() >= 0)
      QToolTip::showText(he->globalPos(), describeCell(c.y(), c.x()), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

void AttentionGridCanvas::wheelEvent(QWheelEvent* e) {
  const QRect g = plotRect(rect());
  const QPointF pos = e->position();
  const QPointF around(view_.x() + (pos.x() - g.left()) * view_.width() / std::max(1, g.width()),
                       view_.y() + (pos.y() - g.top()) * view_.height() / std::max(1, g.height()));
  const double steps = e->angleDelta().y() / 120.0;
  zoomBy(std::pow(1.25, steps), around);
  e->accept();
}

void AttentionGridCanvas::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    dragging_ = true;
    dragStart_ = e->position().toPoint();
    dragView_ = view_;
  }
}

void AttentionGridCanvas::mouseMoveEvent(QMouseEvent* e) {
  if (!dragging_) return;
  const QSizeF cell = cellSize();
  if (cell.isEmpty()) return;
  const QPointF delta = e->position().toPoint() - dragStart_;
  const QPointF d(delta.x() / cell.width(), delta.y() / cell.height());
  setViewRect(dragView_.translated(-d));
}

void AttentionGridCanvas::mouseReleaseEvent(QMouseEvent* e) {
  const bool click = dragging_ && (e->position().toPoint() - dragStart_).manhattanLength() < 4;
  dragging_ = false;
  if (click) {
    QPoint c = cellAt(e->position().toPoint());
    if (c.y() >= 0) {
      if (!override_) session_->selectPosition(c.y());
      Q_EMIT querySelected(c.y());
    }
  }
}

void AttentionGridCanvas::mouseDoubleClickEvent(QMouseEvent*) { fitAll(); }

bool AttentionGridCanvas::moveFocus(int dk, int dq) {
  const int n = int(source_.size());
  if (n == 0) return false;
  QPoint c = focusCell_.x() < 0 ? QPoint(0, std::max(0, highlightedQuery_)) : focusCell_;
  c = QPoint(std::clamp(c.x() + dk, 0, n - 1), std::clamp(c.y() + dq, 0, n - 1));
  focusCell_ = c;
  // Keep the focus cell in view: pan by whole cells when it leaves.
  QRectF v = view_;
  if (c.x() < v.left()) v.moveLeft(c.x());
  if (c.x() + 1 > v.right()) v.moveRight(c.x() + 1);
  if (c.y() < v.top()) v.moveTop(c.y());
  if (c.y() + 1 > v.bottom()) v.moveBottom(c.y() + 1);
  setViewRect(v);
  setToolTip(describeCell(c.y(), c.x()));
  update();
  return true;
}

void AttentionGridCanvas::keyPressEvent(QKeyEvent* e) {
  const QPointF centre = view_.center();
  const bool pan = e->modifiers() & Qt::ShiftModifier; // Shift+arrows pan, arrows move the focus cell
  switch (e->key()) {
  case Qt::Key_Plus:
  case Qt::Key_Equal:
    zoomBy(1.5, focusCell_.x() >= 0 ? QPointF(focusCell_) + QPointF(0.5, 0.5) : centre);
    break;
  case Qt::Key_Minus:
    zoomBy(1 / 1.5, centre);
    break;
  case Qt::Key_0:
    fitAll();
    break;
  case Qt::Key_Left:
    pan ? setViewRect(view_.translated(-view_.width() / 8, 0)) : void(moveFocus(-1, 0));
    break;
  case Qt::Key_Right:
    pan ? setViewRect(view_.translated(view_.width() / 8, 0)) : void(moveFocus(1, 0));
    break;
  case Qt::Key_Up:
    pan ? setViewRect(view_.translated(0, -view_.height() / 8)) : void(moveFocus(0, -1));
    break;
  case Qt::Key_Down:
    pan ? setViewRect(view_.translated(0, view_.height() / 8)) : void(moveFocus(0, 1));
    break;
  case Qt::Key_Return:
  case Qt::Key_Enter:
    if (focusCell_.y() >= 0) {
      if (!override_) session_->selectPosition(focusCell_.y());
      Q_EMIT querySelected(focusCell_.y());
    }
    break;
  default:
    QWidget::keyPressEvent(e);
  }
}

void AttentionGridCanvas::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  // The area's aspect changed: a zoomed view takes the new one (a fitted view stays fitted).
  const double n = double(source_.size());
  if (n > 0 && (view_.width() < n || view_.height() < n)) setViewRect(view_);
}

} // namespace maskscope
