// The attention grid of one batch row: queries down, keys across; each cell allowed or blocked,
// the reason shown by colour and, zoomed in, by a glyph (✓ allowed, · future, P padding,
// × other example). Wheel zooms around the cursor, drag pans, double-click fits. Rendered from the
// row's segment ids (GridRenderer), only the visible part, never one item per cell; the
// whole-grid image is cached per batch, zoomed images per zoom level and view.
#pragma once
#include "ui/GridRenderer.h"

#include <QCache>
#include <QImage>
#include <QWidget>

namespace maskscope {

class Session;
struct Batch;

class AttentionGridView : public QWidget {
  Q_OBJECT
public:
  explicit AttentionGridView(Session* session, QWidget* parent = nullptr);

  // Show another batch (compare mode) instead of the session's; nullptr returns to the session.
  void setBatchOverride(const Batch* batch, int row);
  // Real attention probabilities [T, T] of one layer/head; empty = the mask only.
  void setProbabilities(std::vector<float> probs, const QString& label);
  bool showsProbabilities() const { return !probs_.empty(); }

  int64_t gridSize() const { return source_.size(); }
  CellState cellState(int query, int key) const { return source_.state(query, key); }
  const GridSource& gridSource() const { return source_; } // segment ids of the shown row
  void setHighlightedQuery(int query);
  int highlightedQuery() const { return highlightedQuery_; }
  // The visible region in cells (x = keys, y = queries); the whole grid when fitted.
  QRectF viewRect() const { return view_; }
  void setViewRect(QRectF cells);
  void zoomBy(double factor, QPointF aroundCell);
  void fitAll();
  double cellPixels() const; // on-screen size of one cell
  // The cell under a widget point, or (-1, -1) (x = key, y = query).
  QPoint cellAt(QPoint widgetPos) const;
  QString describeCell(int query, int key) const;
  QSize sizeHint() const override { return {480, 480}; }
  // Paints the view into any painter (export to SVG/PNG uses this).
  void render(QPainter& p, QRect area) const;

Q_SIGNALS:
  void querySelected(int query);
  void viewChanged();

protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

private:
  void rebuild();
  const Batch* batch() const;
  int row() const;
  QRect plotRect(QRect area) const;
  // Where render() draws: the plot rectangle, the cell size in pixels and the whole cells in view.
  struct Frame {
    QRect plot;
    double cell = 0;
    int cx0 = 0, cy0 = 0, cx1 = 0, cy1 = 0; // keys [cx0, cx1), queries [cy0, cy1)
    double x(double key) const;
    double y(double query) const;
    double viewLeft = 0, viewTop = 0;
  };
  void paintCells(QPainter& p, const Frame& f) const; // cells, borders, glyphs, segments, selection
  void paintAxes(QPainter& p, const Frame& f) const;  // token labels zoomed in, position ticks otherwise
  QImage imageFor(QRect visibleCells, QSize plotPixels) const;

  Session* session_;
  const Batch* override_ = nullptr;
  int overrideRow_ = 0;
  GridSource source_;
  std::vector<float> probs_;
  QString probsLabel_;
  QRectF view_;
  int highlightedQuery_ = -1;
  QPoint dragStart_;
  QRectF dragView_;
  bool dragging_ = false;
  mutable QImage overview_; // the fitted view at the last plot size
  mutable QCache<QString, QImage> zoomCache_{16};
  std::vector<int64_t> segmentStarts_; // packed rows: first position of each example after the first
};

} // namespace maskscope
