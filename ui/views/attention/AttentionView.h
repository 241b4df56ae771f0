// The attention view as the window shows it: a legend of the cell states, the layer/head pickers,
// the sliding window (set by hand without a model, the layer's own with one) and the
// mask/probabilities switch above the attention grid. Exports and snapshots paint the grid.
#pragma once
#include "core/forward/LayerAttention.h"

#include <QFont>
#include <QList>
#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;

namespace maskscope {

class AttentionGridCanvas;
class LayerSpinBox;
class Session;

class AttentionView : public QWidget {
  Q_OBJECT
public:
  explicit AttentionView(Session* session, QWidget* parent = nullptr);

  AttentionGridCanvas* grid() const { return grid_; }
  QSpinBox* layerBox() const;
  LayerSpinBox* layerPicker() const { return layerBox_; } // says which layers slide once a model is loaded
  QSpinBox* headBox() const { return headBox_; }
  // 0: the mask; 1: a model's attention probabilities (objectName "gridMode").
  QComboBox* modeBox() const { return modeBox_; }
  // The sliding window (objectName "windowBox"): without a layer layout the user's band of N keys
  // (0 = full attention); with one, the selected layer's window, read-only (the layout decides).
  QSpinBox* windowBox() const { return windowBox_; }
  int64_t userWindow() const { return userWindow_; } // kept while a layout shows its own
  // The legend's "outside the window" entry: shown while a band can appear (a layout with sliding
  // layers, or a window set), folded away otherwise.
  QWidget* windowLegend() const { return windowLegend_; }
  // The pad-query entries: "output unread" (greyed rows) and "output graded" (the bug), each shown
  // only while the grid's row has such rows.
  QWidget* unreadPadLegend() const { return unreadPadLegend_; }
  QLabel* gradedPadLegend() const { return gradedPadLegend_; }
  // One line above the grid (objectName "attentionRule"): the attention implementation the grid follows
  // and the transformers rule that decided its mask (Session::attentionRule); the whole text in its tooltip.
  // Shown only while the implementation matters for the batch (Session::attentionMatters).
  QLabel* attentionRuleLabel() const { return attentionRule_; }
  // What the grid and softmax view draw now (core's shownLayer, as `snapshot --window` / `--layer`).
  ShownLayer shownLayer() const;
  // Presenter mode: the legend's type and swatches scaled with the rest (1.0 = normal), its items
  // rearranged in more rows, each wrapping where the view is narrower than it.
  void setPresenterScale(double scale);
  // The height the legend's folded rows (presenter mode) would add if the shown row needed them.
  int foldedLegendHeight() const;

Q_SIGNALS:
  void layerAttentionChanged(); // the layer, its layout or the user's window changed

protected:
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void showRule();        // the attention line for the session's implementation
  void fitRuleHeight();   // the attention line as tall as its text wrapped at the view's width
  void fitLegendHeight(); // presenter mode: the legend as tall as its rows wrapped at the view's width
  Session* session_ = nullptr;
  // The legend's items by row of the normal arrangement (layOutLegend places them).
  struct LegendItems {
    QList<QWidget*> mask, controls, leaks, band;
  };
  QWidget* buildLegend();
  void layOutLegend(bool presenter);
  QSpinBox* buildWindowBox(QWidget* legend);
  void syncWindowBox();
  void updateWindowLegend();
  void refreshLegend();
  void updatePadQueryLegend();
  static QString stripsText();
  static QString gradedPadText();

  AttentionGridCanvas* grid_ = nullptr;
  LayerSpinBox* layerBox_ = nullptr;
  QSpinBox* headBox_ = nullptr;
  QComboBox* modeBox_ = nullptr;
  QSpinBox* windowBox_ = nullptr;
  int64_t userWindow_ = 0;
  QWidget* windowLegend_ = nullptr;
  QWidget* unreadPadLegend_ = nullptr;
  QLabel* gradedPadLegend_ = nullptr;
  QLabel* attentionRule_ = nullptr;
  QLabel* strips_ = nullptr;
  QWidget* legend_ = nullptr;
  LegendItems legendItems_;
  QFont legendFont_;             // the legend's normal type
  double legendScale_ = 1.0;     // presenter mode's scale of it
  bool presenterLegend_ = false; // presenter mode's arrangement (entries the row lacks fold away)
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in AttentionViewSpec.cpp.
struct ViewSpec;
ViewSpec attentionViewSpec();

} // namespace maskscope
