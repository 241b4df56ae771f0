// Attention grid painting, zoom/pan and hit testing.
#include "ui/AttentionGridView.h"
#include "core/util/Utf8.h"
#include "ui/Palette.h"
#include "ui/Session.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
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

AttentionGridView::AttentionGridView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(200, 200);
  setAttribute(Qt::WA_OpaquePaintEvent);
  connect(session_, &Session::batchChanged, this, [this] {
    if (!override_) rebuild();
  });
  connect(session_, &Session::positionChanged, this, &AttentionGridView::setHighlightedQuery);
  rebuild();
}

const Batch* AttentionGridView::batch() const {
  if (override_) return override_;
  return session_->hasBatch() ? &session_->batch() : nullptr;
}
int AttentionGridView::row() const { return override_ ? overrideRow_ : session_->batchRow(); }

void AttentionGridView::setBatchOverride(const Batch* b, int r) {
  override_ = b;
  overrideRow_ = r;
  rebuild();
}

void AttentionGridView::rebuild() {
  source_ = GridSource();
  probs_.clear();
  probsLabel_.clear();
  segmentStarts_.clear();
  overview_ = QImage();
  zoomCache_.clear();
  const Batch* b = batch();
  if (b && row() >= 0 && row() < b->batchSize()) {
    try {
      source_.segments = segmentIdsForRow(*b, row(), MaskSemantics::Eager);
    } catch (const std::exception&) {
      source_.segments.clear();
    }
    for (size_t t = 1; t < source_.segments.size(); ++t)
      if (source_.segments[t] != 0 && source_.segments[t - 1] != 0 && source_.segments[t] != source_.segments[t - 1])
        segmentStarts_.push_back(int64_t(t));
  }
  view_ = QRectF(0, 0, double(source_.size()), double(source_.size()));
  highlightedQuery_ = session_->selectedPosition() < source_.size() ? session_->selectedPosition() : -1;
  update();
  Q_EMIT viewChanged();
}

void AttentionGridView::setProbabilities(std::vector<float> probs, const QString& label) {
  const int64_t n = source_.size();
  if (!probs.empty() && int64_t(probs.size()) != n * n) return;
  probs_ = std::move(probs);
  probsLabel_ = label;
  source_.probs = probs_.empty() ? nullptr : &probs_;
  overview_ = QImage();
  zoomCache_.clear();
  update();
}

void AttentionGridView::setHighlightedQuery(int query) {
  highlightedQuery_ = query < source_.size() ? query : -1;
  update();
}

void AttentionGridView::setViewRect(QRectF c) {
  const double n = double(source_.size());
  if (n <= 0) return;
  double side = std::clamp(std::max(c.width(), c.height()), std::min(n, 4.0), n);
  double x = std::clamp(c.x(), 0.0, n - side);
  double y = std::clamp(c.y(), 0.0, n - side);
  QRectF next(x, y, side, side);
  if (next == view_) return;
  view_ = next;
  update();
  Q_EMIT viewChanged();
}

void AttentionGridView::zoomBy(double factor, QPointF around) {
  if (source_.size() <= 0 || factor <= 0) return;
  const double side = view_.width() / factor;
  const double fx = (around.x() - view_.x()) / view_.width();
  const double fy = (around.y() - view_.y()) / view_.height();
  setViewRect(QRectF(around.x() - fx * side, around.y() - fy * side, side, side));
}

void AttentionGridView::fitAll() { setViewRect(QRectF(0, 0, double(source_.size()), double(source_.size()))); }

QRect AttentionGridView::plotRect(QRect area) const {
  auto square = [&](int left, int top) {
    const int availW = area.width() - left - 6;
    const int side = std::max(1, std::min(availW, area.height() - top - 6));
    return QRect(area.left() + left + std::max(0, (availW - side) / 2), area.top() + top, side, side);
  };
  // Token labels need wide margins; numbers (zoomed out) narrow ones, so the grid keeps the room.
  const QRect narrow = square(kLeftTicks, kTopTicks);
  if (view_.width() > 0 && narrow.width() / view_.width() >= kLabelCell) return square(kLeft, kTop);
  return narrow;
}

double AttentionGridView::cellPixels() const {
  if (view_.width() <= 0) return 0;
  return plotRect(rect()).width() / view_.width();
}

QPoint AttentionGridView::cellAt(QPoint pos) const {
  if (source_.size() == 0) return {-1, -1};
  const QRect g = plotRect(rect());
  if (!g.contains(pos)) return {-1, -1};
  const double cell = g.width() / view_.width();
  const int k = int(std::floor(view_.x() + (pos.x() - g.left()) / cell));
  const int q = int(std::floor(view_.y() + (pos.y() - g.top()) / cell));
  if (k < 0 || q < 0 || k >= source_.size() || q >= source_.size()) return {-1, -1};
  return {k, q};
}

QString AttentionGridView::describeCell(int q, int k) const {
  const Batch* b = batch();
  if (!b || q < 0 || k < 0 || q >= source_.size() || k >= source_.size()) return {};
  const int r = row();
  const CellState s = source_.state(q, k);
  QString why;
  switch (s) {
  case CellState::Allowed:
    why = tr("allowed: the query sees this key (mask adds 0)");
    break;
  case CellState::Future:
    why = tr("blocked: the key is in the future (causal mask, adds -inf)");
    break;
  case CellState::Padding:
    why = tr("blocked: the key is padding (attention_mask 0, adds -inf)");
    break;
  case CellState::OtherExample:
    why = tr("blocked: the key belongs to another packed example (segment %1 vs %2, adds -inf)")
              .arg(source_.segments[size_t(k)])
              .arg(source_.segments[size_t(q)]);
    break;
  }
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

QImage AttentionGridView::imageFor(QRect cells, QSize px) const {
  const bool whole = cells == QRect(0, 0, int(source_.size()), int(source_.size()));
  const bool oneToOne = cells.width() <= px.width(); // a cell covers at least a pixel: render cells 1:1
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

double AttentionGridView::Frame::x(double key) const { return plot.left() + (key - viewLeft) * cell; }
double AttentionGridView::Frame::y(double query) const { return plot.top() + (query - viewTop) * cell; }

void AttentionGridView::render(QPainter& p, QRect area) const {
  p.fillRect(area, palette().window());
  const int64_t n = source_.size();
  if (n == 0) {
    p.setPen(palette().text().color());
    p.drawText(area, Qt::AlignCenter, tr("No batch"));
    return;
  }
  Frame f;
  f.plot = plotRect(area);
  f.cell = f.plot.width() / view_.width();
  f.viewLeft = view_.left();
  f.viewTop = view_.top();
  // Integer cells covering the view; the image is drawn with the fractional offset.
  f.cx0 = int(std::floor(view_.left()));
  f.cy0 = int(std::floor(view_.top()));
  f.cx1 = int(std::min<double>(double(n), std::ceil(view_.right())));
  f.cy1 = int(std::min<double>(double(n), std::ceil(view_.bottom())));
  paintCells(p, f);
  paintAxes(p, f);
  const QRect g = f.plot;
  QFont caption = font();
  caption.setPixelSize(12);
  p.setFont(caption);
  p.drawText(QRect(area.left() + 4, area.top() + 2, kLeft + 200, 16), Qt::AlignLeft,
             tr("keys \u2192   queries \u2193   %1 x %2%3")
                 .arg(n)
                 .arg(n)
                 .arg(probs_.empty() ? QString() : QStringLiteral("   ") + probsLabel_));
  if (view_.width() < double(n))
    p.drawText(QRect(area.left() + 4, area.top() + 18, kLeft + 200, 16), Qt::AlignLeft,
               tr("zoom %1x (double-click: fit)").arg(double(n) / view_.width(), 0, 'f', 1));
  p.setPen(palette().text().color());
  p.setBrush(Qt::NoBrush);
  p.drawRect(g.adjusted(0, 0, -1, -1));
}

void AttentionGridView::paintCells(QPainter& p, const Frame& f) const {
  const int64_t n = source_.size();
  const QRect g = f.plot;
  const double cell = f.cell;
  const int cx0 = f.cx0, cy0 = f.cy0, cx1 = f.cx1, cy1 = f.cy1;
  const QRect cells(cx0, cy0, std::max(1, cx1 - cx0), std::max(1, cy1 - cy0));
  const QImage img = imageFor(cells, g.size());
  p.save();
  p.setClipRect(g);
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  const double sx = double(img.width()) / cells.width(), sy = double(img.height()) / cells.height();
  const QRectF src((view_.left() - cx0) * sx, (view_.top() - cy0) * sy, view_.width() * sx, view_.height() * sy);
  p.drawImage(QRectF(g), img, src);

  auto toX = [&](double k) { return f.x(k); };
  auto toY = [&](double q) { return f.y(q); };
  // Cell borders and reason glyphs once cells are big enough to tell apart.
  if (cell >= 6) {
    p.setPen(QColor(255, 255, 255, 110));
    for (int i = cx0; i <= cx1; ++i) p.drawLine(QPointF(toX(i), g.top()), QPointF(toX(i), g.bottom()));
    for (int i = cy0; i <= cy1; ++i) p.drawLine(QPointF(g.left(), toY(i)), QPointF(g.right(), toY(i)));
  }
  if (cell >= kLabelCell) {
    QFont f = font();
    f.setPixelSize(int(std::min(cell * 0.6, 18.0)));
    p.setFont(f);
    for (int q = cy0; q < cy1; ++q)
      for (int k = cx0; k < cx1; ++k) {
        const CellState s = source_.state(q, k);
        // Glyph contrast from the cell's own colour (dark theme's future cells are dark too).
        p.setPen(s == CellState::Allowed                    ? QColor(Qt::white)
                 : palette::cellColour(s).lightness() < 128 ? QColor(0xc8, 0xc8, 0xc8)
                                                            : QColor(0x30, 0x30, 0x30));
        p.drawText(QRectF(toX(k), toY(q), cell, cell), Qt::AlignCenter, QString(palette::cellGlyph(s)));
      }
  }
  // Packed rows: the example (segment) boundaries.
  if (!segmentStarts_.empty()) {
    QPen pen(palette().text().color());
    pen.setWidth(2);
    pen.setStyle(Qt::DashLine);
    p.setPen(pen);
    for (int64_t s : segmentStarts_) {
      p.drawLine(QPointF(toX(double(s)), g.top()), QPointF(toX(double(s)), g.bottom()));
      p.drawLine(QPointF(g.left(), toY(double(s))), QPointF(g.right(), toY(double(s))));
    }
  }
  if (highlightedQuery_ >= 0 && highlightedQuery_ < n) {
    QRectF r(g.left(), toY(highlightedQuery_), g.width(), std::max(2.0, cell));
    QPen pen(palette().highlight().color());
    pen.setWidth(2);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
  }
  p.restore();
}

void AttentionGridView::paintAxes(QPainter& p, const Frame& f) const {
  const QRect g = f.plot;
  const double cell = f.cell;
  const int cx0 = f.cx0, cy0 = f.cy0, cx1 = f.cx1, cy1 = f.cy1;
  auto toX = [&](double k) { return f.x(k); };
  auto toY = [&](double q) { return f.y(q); };
  // Axes: token labels when zoomed in, position ticks otherwise.
  const Batch* b = batch();
  p.setPen(palette().text().color());
  QFont small = font();
  small.setPixelSize(11);
  p.setFont(small);
  if (cell >= kLabelCell && b) {
    // The selected position's labels (query row and key column) in bold highlight colour.
    QFont selected = small;
    selected.setBold(true);
    auto labelStyle = [&](int position) {
      const bool sel = position == highlightedQuery_;
      p.setFont(sel ? selected : small);
      p.setPen(sel ? palette().highlight().color() : palette().text().color());
    };
    for (int q = cy0; q < cy1; ++q) {
      QRectF r(g.left() - kLeft + 2, toY(q), kLeft - 6, cell);
      // Labels of rows only partly on screen would spill over the caption or below the grid.
      if (r.center().y() < g.top() || r.center().y() > g.bottom()) continue;
      labelStyle(q);
      p.drawText(r, Qt::AlignRight | Qt::AlignVCenter,
                 QStringLiteral("%1 %2").arg(shortToken(session_->tokenText(b->inputIds.at(row(), q)), 9)).arg(q));
    }
    for (int k = cx0; k < cx1; ++k) {
      const double x = toX(k);
      if (x + cell / 2 < g.left() || x + cell / 2 > g.right()) continue;
      labelStyle(k);
      p.save();
      p.translate(x + cell / 2 + 4, g.top() - 4);
      p.rotate(-90);
      p.drawText(QRectF(0, -cell / 2 - 4, kTop - 8, cell), Qt::AlignLeft | Qt::AlignVCenter,
                 QStringLiteral("%1 %2").arg(k).arg(shortToken(session_->tokenText(b->inputIds.at(row(), k)), 9)));
      p.restore();
    }
    p.setFont(small);
    p.setPen(palette().text().color());
  } else {
    const int step = niceStep(40.0 / cell);
    for (int64_t i = (int64_t(view_.left()) / step) * step; i <= int64_t(view_.right()); i += step) {
      const double x = toX(double(i) + 0.5);
      if (x < g.left() || x > g.right()) continue;
      p.drawLine(QPointF(x, g.top() - 4), QPointF(x, g.top()));
      p.drawText(QRectF(x - 30, g.top() - 20, 60, 14), Qt::AlignCenter, QString::number(i));
    }
    for (int64_t i = (int64_t(view_.top()) / step) * step; i <= int64_t(view_.bottom()); i += step) {
      const double y = toY(double(i) + 0.5);
      if (y < g.top() || y > g.bottom()) continue;
      p.drawLine(QPointF(g.left() - 4, y), QPointF(g.left(), y));
      p.drawText(QRectF(g.left() - kLeftTicks, y - 7, kLeftTicks - 8, 14), Qt::AlignRight | Qt::AlignVCenter,
                 QString::number(i));
    }
  }
}

void AttentionGridView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, rect());
}

bool AttentionGridView::event(QEvent* e) {
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

void AttentionGridView::wheelEvent(QWheelEvent* e) {
  const QRect g = plotRect(rect());
  const double cell = g.width() / std::max(1e-9, view_.width());
  const QPointF pos = e->position();
  const QPointF around(view_.x() + (pos.x() - g.left()) / cell, view_.y() + (pos.y() - g.top()) / cell);
  const double steps = e->angleDelta().y() / 120.0;
  zoomBy(std::pow(1.25, steps), around);
  e->accept();
}

void AttentionGridView::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    dragging_ = true;
    dragStart_ = e->position().toPoint();
    dragView_ = view_;
  }
}

void AttentionGridView::mouseMoveEvent(QMouseEvent* e) {
  if (!dragging_) return;
  const double cell = plotRect(rect()).width() / std::max(1e-9, view_.width());
  const QPointF d = QPointF(e->position().toPoint() - dragStart_) / cell;
  setViewRect(dragView_.translated(-d));
}

void AttentionGridView::mouseReleaseEvent(QMouseEvent* e) {
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

void AttentionGridView::mouseDoubleClickEvent(QMouseEvent*) { fitAll(); }

void AttentionGridView::keyPressEvent(QKeyEvent* e) {
  const QPointF centre = view_.center();
  switch (e->key()) {
  case Qt::Key_Plus:
  case Qt::Key_Equal:
    zoomBy(1.5, centre);
    break;
  case Qt::Key_Minus:
    zoomBy(1 / 1.5, centre);
    break;
  case Qt::Key_0:
    fitAll();
    break;
  case Qt::Key_Left:
    setViewRect(view_.translated(-view_.width() / 8, 0));
    break;
  case Qt::Key_Right:
    setViewRect(view_.translated(view_.width() / 8, 0));
    break;
  case Qt::Key_Up:
    setViewRect(view_.translated(0, -view_.height() / 8));
    break;
  case Qt::Key_Down:
    setViewRect(view_.translated(0, view_.height() / 8));
    break;
  default:
    QWidget::keyPressEvent(e);
  }
}

} // namespace maskscope
