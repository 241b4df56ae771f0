// The attention grid of one batch row: queries down, keys across; each cell allowed or blocked,
// the reason shown by colour and, zoomed in, by a glyph (✓ allowed, · future, P padding,
// × other example, W outside a sliding layer's window, ! allowed pad key, ≠ allowed key of another example; the last
// two striped). Strips along the top and left show each position's kind; packed examples are outlined. The grid fills
// its area (fitted, cells may be oblong); zooming in tends to square cells (the area's aspect). Wheel zooms around the
// cursor, drag pans, double-click fits; arrows move the focus cell. Rendered from the row's anatomy (GridRenderer),
// only the visible part, never one item per cell.
#pragma once
#include "ui/views/attention/GridRenderer.h"

#include <QCache>
#include <QImage>
#include <QWidget>

namespace maskscope {

class Session;
struct Batch;

class AttentionGridCanvas : public QWidget {
  Q_OBJECT
public:
  explicit AttentionGridCanvas(Session* session, QWidget* parent = nullptr);

  // Show another batch (compare mode) instead of the session's; nullptr returns to the session.
  void setBatchOverride(const Batch* batch, int row);
  // Real attention probabilities [T, T] of one layer/head; empty = the mask only.
  void setProbabilities(std::vector<float> probs, const QString& label);
  bool showsProbabilities() const { return !probs_.empty(); }
  // The layer shown: window > 0 draws a sliding layer's band (keys older than the window are
  // "outside the window"); text (e.g. "layer 3: sliding, window 4096") goes into the caption.
  void setLayerAttention(int64_t window, const QString& text);
  int64_t window() const { return window_; }

  int64_t gridSize() const { return source_.size(); }
  CellState cellState(int query, int key) const { return source_.state(query, key); }
  CellClass cellClass(int query, int key) const { return source_.classify(query, key); }
  const GridSource& gridSource() const { return source_; } // the shown row's anatomy
  // Compare mode: tint the cells whose state differs from their aligned cell of `other` (its position =
  // this one + shift; nullptr: no overlay).
  void setDiffSource(const GridSource* other, int64_t shift = 0);
  int64_t exampleCount() const; // packed examples revealed in the row (1 when unpacked)
  const std::vector<int64_t>& exampleStarts() const { return segmentStarts_; }
  QPoint focusCell() const { return focusCell_; } // x = key, y = query
  void setHighlightedQuery(int query);
  int highlightedQuery() const { return highlightedQuery_; }
  // The visible region in cells (x = keys, y = queries); the whole grid when fitted.
  QRectF viewRect() const { return view_; }
  void setViewRect(QRectF cells);
  void zoomBy(double factor, QPointF aroundCell);
  void fitAll();
  // Pads dominating a row (more than its real tokens) are folded: each row starts zoomed to its real
  // tokens and a few pads, and the caption says how many pads lie beyond (double-click shows all).
  // Off (snapshots, exports of the whole grid): each row starts fitted. On by default.
  void setFoldsPads(bool on);
  bool foldsPads() const { return foldsPads_; }
  // The row's real tokens and the pads shown beside them, or an empty rect when nothing is folded.
  QRectF foldedView() const;
  // Presenter mode: label fonts and the margins they need grow by this factor (1 = the default).
  void setLabelScale(double scale);
  double labelScale() const { return labelScale_; }
  double cellPixels() const; // on-screen size of one cell (the smaller side when oblong)
  QSizeF cellSize() const;   // on-screen width and height of one cell
  // The cell under a widget point, or (-1, -1) (x = key, y = query).
  QPoint cellAt(QPoint widgetPos) const;
  QString describeCell(int query, int key) const;
  QSize sizeHint() const override { return {480, 480}; }
  // The margins for captions and position numbers (they grow with the label scale) around a
  // plot of at least 100 x 100 px.
  QSize minimumSizeHint() const override;
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
  void resizeEvent(QResizeEvent* event) override;

private:
  void rebuild();
  void showFolded(); // the view of foldedView(), shaped to the area; the row's start view
  const Batch* batch() const;
  int row() const;
  QRect plotRect(QRect area) const;
  QRect plotRectWith(QRect area, bool rowLabels, bool columnLabels) const;
  bool moveFocus(int dk, int dq);
  // Where render() draws: the plot rectangle, the cell size in pixels and the whole cells in view.
  struct Frame {
    QRect plot;
    double cellW = 0, cellH = 0;
    int cx0 = 0, cy0 = 0, cx1 = 0, cy1 = 0; // keys [cx0, cx1), queries [cy0, cy1)
    double x(double key) const;
    double y(double query) const;
    double viewLeft = 0, viewTop = 0;
  };
  void paintCells(QPainter& p, const Frame& f) const;    // cells, borders, glyphs, segments, selection
  void paintAxes(QPainter& p, const Frame& f) const;     // token labels zoomed in, position ticks otherwise
  void paintHatching(QPainter& p, const Frame& f) const; // stripes on scaled-up allowed-but-wrong cells
  void paintGlyphs(QPainter& p, const Frame& f) const;
  void paintStrips(QPainter& p, const Frame& f) const;   // each key's / query's kind
  void paintOverlays(QPainter& p, const Frame& f) const; // boundaries, selection, focus cell
  void paintScale(QPainter& p, const Frame& f) const;    // probability colour scale
  void paintCaption(QPainter& p, QRect area, bool boundariesDrawn) const;
  // The example boundaries in view are at least 8 px apart on average (else they are not drawn:
  // 1,367 examples of a 128k-token row would cover the cells).
  bool boundariesDrawn(const Frame& f) const;
  QImage imageFor(QRect visibleCells, QSize plotPixels) const;

  Session* session_;
  const Batch* override_ = nullptr;
  int overrideRow_ = 0;
  GridSource source_;
  std::vector<float> probs_;
  QString probsLabel_;
  int64_t window_ = 0; // the shown layer's sliding window; 0 = full attention
  QString layerText_;
  QRectF view_;
  bool foldsPads_ = true;
  QRectF startView_; // the view a row starts at when its pads are folded (else empty)
  double labelScale_ = 1.0;
  int scaled(int pixels) const { return int(pixels * labelScale_ + 0.5); }
  double labelCell() const { return 13.0 * labelScale_; } // cells at least this big get token labels
  int highlightedQuery_ = -1;
  QPoint focusCell_{-1, -1};
  const GridSource* diffSource_ = nullptr;
  int64_t diffShift_ = 0;
  QPoint dragStart_;
  QRectF dragView_;
  bool dragging_ = false;
  mutable QImage overview_; // the fitted view at the last plot size
  mutable QCache<QString, QImage> zoomCache_{16};
  std::vector<int64_t> segmentStarts_; // packed rows: first position of each example after the first
};

} // namespace maskscope
