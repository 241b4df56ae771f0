// Attention grid: its view (zoom, pan, fit), hit testing, cell descriptions and input; the painting is in
// AttentionGridPainting.cpp.
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/shell/Session.h"
#include "ui/views/attention/GridMetrics.h"
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

using namespace gridmetrics;

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
  startView_ = QRectF();
  if (foldsPads_) showFolded();
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
  const bool atStart = !startView_.isEmpty() && view_ == startView_;
  view_ = QRectF(); // the margins changed: shape the same cells again
  if (atStart)
    showFolded();
  else if (keep.isValid())
    setViewRect(keep);
  update();
}

QRectF AttentionGridCanvas::foldedView() const {
  const int64_t n = source_.size();
  if (source_.padding.size() != size_t(n)) return {};
  int64_t first = -1, last = -1;
  for (int64_t t = 0; t < n; ++t)
    if (!source_.padding[size_t(t)]) {
      if (first < 0) first = t;
      last = t;
    }
  const int64_t real = first < 0 ? 0 : last - first + 1;
  if (real == 0 || n - real <= real) return {};                // no real token, or the pads do not dominate
  const int64_t margin = std::min<int64_t>(4, (n - real) / 4); // a few pads show where they begin
  const double from = double(std::max<int64_t>(0, first - margin)), to = double(std::min(n, last + 1 + margin));
  return {from, from, to - from, to - from};
}

void AttentionGridCanvas::showFolded() {
  const QRectF folded = foldedView();
  if (folded.isEmpty()) return;
  view_ = QRectF(0, 0, double(source_.size()), double(source_.size()));
  setViewRect(folded);
  startView_ = view_; // shaped to the area's aspect
}

void AttentionGridCanvas::setFoldsPads(bool on) {
  if (on == foldsPads_) return;
  foldsPads_ = on;
  rebuild();
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
  if (source_.unreadPadQuery(q) && q + 1 >= source_.size())
    why += tr("\nthis query is padding and the row's last position: no label follows it, so the loss reads none "
              "of its output: row greyed");
  else if (source_.unreadPadQuery(q))
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
  if (!startView_.isEmpty() && view_ == startView_)
    showFolded(); // still where the row started: its real tokens, shaped to the new aspect
  else if (n > 0 && (view_.width() < n || view_.height() < n))
    setViewRect(view_);
}

} // namespace maskscope
