// The wheel over an unfocused box goes on to its parents (a scroll area scrolls); the box never sees it.
#include "ui/widgets/WheelGuard.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QWheelEvent>
#include <QWidget>

namespace maskscope {

namespace {
// w lies inside window, in a floating dock of it too (QWidget::isAncestorOf stops at a window).
bool inside(const QWidget* w, const QWidget* window) {
  for (; w; w = w->parentWidget())
    if (w == window) return true;
  return false;
}
} // namespace

WheelGuard::WheelGuard(QWidget* window) : QObject(window), window_(window) {
  if (QCoreApplication* app = QCoreApplication::instance()) app->installEventFilter(this);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
  if (!watched->isWidgetType()) return false;
  auto* w = static_cast<QWidget*>(watched);
  // A box takes focus by click or Tab, not by the wheel passing over it (QApplication gives a
  // Qt::WheelFocus widget focus before any filter sees the wheel).
  if (event->type() == QEvent::Polish && inside(w, window_) && w->focusPolicy() == Qt::WheelFocus &&
      (qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w)))
    w->setFocusPolicy(Qt::StrongFocus);
  if (event->type() != QEvent::Wheel) return false;
  // The box itself, or a part of it (a spin box's line edit, a combo box's frame).
  QWidget* box = nullptr;
  for (QWidget* p = w; p && !box && !p->isWindow(); p = p->parentWidget())
    if (qobject_cast<QAbstractSpinBox*>(p) || qobject_cast<QComboBox*>(p)) box = p;
  if (!box || !inside(box, window_) || box->hasFocus()) return false;
  // The box's parents get the wheel, nearest first, until one takes it (a scroll area's viewport
  // scrolls); QApplication would stop at the box for an event sent to it by hand.
  const auto* wheel = static_cast<QWheelEvent*>(event);
  for (QWidget* p = box->parentWidget(); p; p = p->parentWidget()) {
    QWheelEvent copy(p->mapFromGlobal(wheel->globalPosition()), wheel->globalPosition(), wheel->pixelDelta(),
                     wheel->angleDelta(), wheel->buttons(), wheel->modifiers(), wheel->phase(), wheel->inverted(),
                     wheel->source(), wheel->pointingDevice());
    QCoreApplication::sendEvent(p, &copy);
    if (copy.isAccepted() || p->isWindow()) break;
  }
  event->accept();
  return true; // the box never sees it
}

} // namespace maskscope
