// The attention grid of one batch row: queries down, keys across; each cell allowed or blocked
// with the reason shown by colour (future, padding, other example). Rendered once into a QImage
// (one pixel per cell) and scaled on paint, never one item per cell.
#pragma once
#include "core/mask/AttentionGrid.h"

#include <QImage>
#include <QWidget>

namespace maskscope {

class Session;

class AttentionGridView : public QWidget {
  Q_OBJECT
public:
  explicit AttentionGridView(Session* session, QWidget* parent = nullptr);

  const AttentionGrid& grid() const { return grid_; }
  const QImage& image() const { return image_; }
  void setHighlightedQuery(int query);
  // The cell under a widget point, or (-1, -1).
  QPoint cellAt(QPoint widgetPos) const;
  QString describeCell(int query, int key) const;
  QSize sizeHint() const override { return {420, 420}; }

protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

private:
  void rebuild();
  QRect gridRect() const;

  Session* session_;
  AttentionGrid grid_;
  QImage image_;
  int highlightedQuery_ = -1;
};

} // namespace maskscope
