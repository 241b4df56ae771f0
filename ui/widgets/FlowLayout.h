// A layout that places its items left to right and wraps them onto further lines where the width
// runs out, its height following its width (after Qt's flow layout example). Presenter mode's grid
// legend uses it, so the centre may be narrower than the legend's longest row.
#pragma once
#include <QLayout>
#include <QList>

namespace maskscope {

class FlowLayout : public QLayout {
public:
  explicit FlowLayout(int hSpacing = 6, int vSpacing = 2);
  ~FlowLayout() override;

  // A widget marked so (setKeepWithNext) stays on the line of the item after it: a label and its box.
  static void setKeepWithNext(QWidget* w, bool keep = true);

  void addItem(QLayoutItem* item) override;
  int count() const override { return int(items_.size()); }
  QLayoutItem* itemAt(int index) const override { return items_.value(index); }
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override { return {}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false, false); }
  // The height at width with the hidden items shown too (the room they would take back).
  int heightWithHidden(int width) const { return arrange(QRect(0, 0, width, 0), false, true); }
  QSize minimumSize() const override; // the widest unit (items kept together) and one line
  QSize sizeHint() const override;    // every item on one line
  void setGeometry(const QRect& rect) override;

private:
  int arrange(const QRect& rect, bool apply, bool withHidden) const;
  QList<QLayoutItem*> items_;
  int hSpacing_;
  int vSpacing_;
};

} // namespace maskscope
