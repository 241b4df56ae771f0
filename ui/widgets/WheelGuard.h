// The mouse wheel over a spin box or combo box that has no keyboard focus scrolls the panel around it
// instead of changing its value (scrolling a docked panel past its Seed box must not change the seed).
// A box the user clicked or tabbed into (it has focus) takes the wheel as usual.
#pragma once
#include <QObject>

class QWidget;

namespace maskscope {

class WheelGuard : public QObject {
  Q_OBJECT
public:
  // Guards every box inside `window`, those made later too (the filter is the application's).
  explicit WheelGuard(QWidget* window);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  QWidget* window_;
};

} // namespace maskscope
