// Flow layout: items in units (a widget kept with the next one), units left to right, a new line
// where the next unit does not fit; each line's items centred on the line's height.
#include "ui/widgets/FlowLayout.h"

#include <QWidget>
#include <algorithm>

namespace maskscope {

namespace {

constexpr const char* kKeepWithNext = "flowKeepWithNext";

bool keptWithNext(const QLayoutItem* item) {
  return item->widget() && item->widget()->property(kKeepWithNext).toBool();
}

// An item's size for the layout; a hidden widget's as if shown (withHidden), else none.
QSize itemSize(const QLayoutItem* item, bool withHidden) {
  if (!item->isEmpty()) return item->sizeHint();
  if (withHidden && item->widget()) return item->widget()->sizeHint().expandedTo(item->widget()->minimumSizeHint());
  return {};
}

} // namespace

FlowLayout::FlowLayout(int hSpacing, int vSpacing) : hSpacing_(hSpacing), vSpacing_(vSpacing) {
  setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::setKeepWithNext(QWidget* w, bool keep) { w->setProperty(kKeepWithNext, keep); }

void FlowLayout::addItem(QLayoutItem* item) { items_.append(item); }

QLayoutItem* FlowLayout::takeAt(int index) {
  if (index < 0 || index >= items_.size()) return nullptr;
  return items_.takeAt(index);
}

QSize FlowLayout::minimumSize() const {
  QSize least;
  int unit = 0;
  for (const QLayoutItem* item : items_) {
    const QSize s = itemSize(item, false);
    if (s.isEmpty()) continue;
    unit += (unit ? hSpacing_ : 0) + s.width();
    least = least.expandedTo(QSize(unit, s.height()));
    if (!keptWithNext(item)) unit = 0;
  }
  const QMargins m = contentsMargins();
  return least + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
  QSize line;
  for (const QLayoutItem* item : items_) {
    const QSize s = itemSize(item, false);
    if (s.isEmpty()) continue;
    line = QSize(line.width() + (line.width() ? hSpacing_ : 0) + s.width(), std::max(line.height(), s.height()));
  }
  const QMargins m = contentsMargins();
  return line + QSize(m.left() + m.right(), m.top() + m.bottom());
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  arrange(rect, true, false);
}

// Lines of units; returns the height used (0 when nothing is shown).
int FlowLayout::arrange(const QRect& rect, bool apply, bool withHidden) const {
  const QRect area = rect.marginsRemoved(contentsMargins());
  struct Placed {
    QLayoutItem* item;
    QSize size;
  };
  QList<QList<Placed>> lines(1);
  QList<int> widths{0};
  QList<Placed> unit;
  int unitWidth = 0;
  auto flushUnit = [&] {
    if (unit.isEmpty()) return;
    const int needed = (widths.last() ? hSpacing_ : 0) + unitWidth;
    if (widths.last() && widths.last() + needed > area.width()) {
      lines.append(QList<Placed>());
      widths.append(0);
    }
    widths.last() += (widths.last() ? hSpacing_ : 0) + unitWidth;
    lines.last() += unit;
    unit.clear();
    unitWidth = 0;
  };
  for (QLayoutItem* item : items_) {
    const QSize s = itemSize(item, withHidden);
    if (s.isEmpty()) continue;
    unitWidth += (unit.isEmpty() ? 0 : hSpacing_) + s.width();
    unit.append({item, s});
    if (!keptWithNext(item)) flushUnit();
  }
  flushUnit();
  int y = area.top();
  bool any = false;
  for (const QList<Placed>& line : lines) {
    if (line.isEmpty()) continue;
    int height = 0;
    for (const Placed& p : line) height = std::max(height, p.size.height());
    if (any) y += vSpacing_;
    any = true;
    int x = area.left();
    for (const Placed& p : line) {
      if (apply) p.item->setGeometry(QRect(QPoint(x, y + (height - p.size.height()) / 2), p.size));
      x += p.size.width() + hSpacing_;
    }
    y += height;
  }
  if (!any) return 0;
  const QMargins m = contentsMargins();
  return y - area.top() + m.top() + m.bottom();
}

} // namespace maskscope
