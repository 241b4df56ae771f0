// The attention view as the window shows it: a legend of the cell states, the layer/head pickers
// and the mask/probabilities switch above the attention grid. Exports and snapshots paint the grid.
#pragma once
#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;

namespace maskscope {

class AttentionGridView;
class LayerSpinBox;
class Session;

class AttentionPane : public QWidget {
  Q_OBJECT
public:
  explicit AttentionPane(Session* session, QWidget* parent = nullptr);

  AttentionGridView* grid() const { return grid_; }
  QSpinBox* layerBox() const;
  LayerSpinBox* layerPicker() const { return layerBox_; } // says which layers slide once a model is loaded
  QSpinBox* headBox() const { return headBox_; }
  // 0: the mask; 1: a model's attention probabilities (objectName "gridMode").
  QComboBox* modeBox() const { return modeBox_; }

protected:
  void changeEvent(QEvent* event) override;

private:
  QWidget* buildLegend();
  void refreshLegend();
  static QString stripsText();

  AttentionGridView* grid_ = nullptr;
  LayerSpinBox* layerBox_ = nullptr;
  QSpinBox* headBox_ = nullptr;
  QComboBox* modeBox_ = nullptr;
  QLabel* strips_ = nullptr;
};

} // namespace maskscope
