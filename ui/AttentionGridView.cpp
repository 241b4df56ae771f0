// Attention grid painting and hit testing.
#include "ui/AttentionGridView.h"
#include "ui/Palette.h"
#include "ui/Session.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace maskscope {

AttentionGridView::AttentionGridView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  setMouseTracking(true);
  setMinimumSize(160, 160);
  connect(session_, &Session::batchChanged, this, &AttentionGridView::rebuild);
  rebuild();
}

void AttentionGridView::rebuild() {
  grid_ = AttentionGrid();
  image_ = QImage();
  highlightedQuery_ = -1;
  if (session_->hasBatch()) {
    grid_ = attentionGridForRow(session_->batch(), session_->batchRow());
    const int n = int(grid_.size);
    image_ = QImage(n, n, QImage::Format_RGB32);
    const QRgb colours[4] = {palette::cellColour(CellState::Allowed).rgb(), palette::cellColour(CellState::Future).rgb(),
                             palette::cellColour(CellState::Padding).rgb(),
                             palette::cellColour(CellState::OtherExample).rgb()};
    for (int q = 0; q < n; ++q) {
      auto* line = reinterpret_cast<QRgb*>(image_.scanLine(q));
      const CellState* row = grid_.cells.data() + size_t(q) * size_t(n);
      for (int k = 0; k < n; ++k) line[k] = colours[int(row[k])];
    }
  }
  update();
}

void AttentionGridView::setHighlightedQuery(int query) {
  highlightedQuery_ = query;
  update();
}

QRect AttentionGridView::gridRect() const {
  const int side = std::max(1, std::min(width(), height()) - 8);
  return QRect((width() - side) / 2, (height() - side) / 2, side, side);
}

QPoint AttentionGridView::cellAt(QPoint pos) const {
  if (grid_.size == 0) return {-1, -1};
  QRect g = gridRect();
  if (!g.contains(pos)) return {-1, -1};
  int k = int(int64_t(pos.x() - g.left()) * grid_.size / g.width());
  int q = int(int64_t(pos.y() - g.top()) * grid_.size / g.height());
  return {k, q};
}

QString AttentionGridView::describeCell(int q, int k) const {
  if (q < 0 || k < 0 || q >= grid_.size || k >= grid_.size) return {};
  const Batch& b = session_->batch();
  const int r = session_->batchRow();
  CellState s = grid_.at(q, k);
  QString why;
  switch (s) {
  case CellState::Allowed: why = tr("allowed: the query sees this key"); break;
  case CellState::Future: why = tr("blocked: the key is in the future (causal mask)"); break;
  case CellState::Padding: why = tr("blocked: the key is padding (attention_mask 0)"); break;
  case CellState::OtherExample: why = tr("blocked: the key belongs to another packed example"); break;
  }
  return tr("query %1 \"%2\"\nkey %3 \"%4\"\n%5")
      .arg(q)
      .arg(session_->tokenText(b.inputIds.at(r, q)))
      .arg(k)
      .arg(session_->tokenText(b.inputIds.at(r, k)))
      .arg(why);
}

void AttentionGridView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().window());
  if (image_.isNull()) {
    p.drawText(rect(), Qt::AlignCenter, tr("No batch"));
    return;
  }
  QRect g = gridRect();
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(g, image_);
  const int n = int(grid_.size);
  const double cell = double(g.width()) / n;
  if (cell >= 6) { // cell borders once cells are large enough to tell apart
    p.setPen(QColor(255, 255, 255, 90));
    for (int i = 0; i <= n; ++i) {
      int x = g.left() + int(i * cell);
      int y = g.top() + int(i * cell);
      p.drawLine(x, g.top(), x, g.bottom());
      p.drawLine(g.left(), y, g.right(), y);
    }
  }
  if (highlightedQuery_ >= 0 && highlightedQuery_ < n) {
    QRectF row(g.left(), g.top() + highlightedQuery_ * cell, g.width(), std::max(1.0, cell));
    QPen pen(palette().highlight().color());
    pen.setWidth(2);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawRect(row);
  }
  p.setPen(palette().text().color());
  p.drawRect(g.adjusted(0, 0, -1, -1));
}

bool AttentionGridView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    QPoint c = cellAt(he->pos());
    if (c.x() >= 0) QToolTip::showText(he->globalPos(), describeCell(c.y(), c.x()), this);
    else QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

} // namespace maskscope
