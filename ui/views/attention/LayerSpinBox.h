// The attention pane's layer picker: a spin box whose text says how each layer attends once a
// model is loaded ("3 · sliding", "5 · full"; the window box beside it gives the size), with the
// whole model's layout in its tooltip. Without a model it is a plain number (layer 0 of nothing).
#pragma once
#include "core/forward/ForwardEngine.h"

#include <QSpinBox>

namespace maskscope {

class LayerSpinBox : public QSpinBox {
  Q_OBJECT
public:
  explicit LayerSpinBox(QWidget* parent = nullptr);
  // The loaded model's layers (range 0 .. layers - 1); a default ModelInfo clears them.
  void setModel(const ModelInfo& info);
  const ModelInfo& model() const { return info_; }
  bool hasLayout() const { return !info_.layerAttention.empty(); } // a model's (or a config's) layers
  int64_t windowOf(int layer) const;                               // 0 = full attention (or no model)
  double softcap() const { return info_.attnLogitSoftcap; }
  QString describe(int layer) const; // "layer 3 — sliding, window 4096" / "layer 5 — full"; empty without a model

Q_SIGNALS:
  void modelChanged(); // setModel: the layers' kinds (and so the shown window) may have changed

protected:
  QString textFromValue(int value) const override;
  int valueFromText(const QString& text) const override;
  QValidator::State validate(QString& text, int& pos) const override;

private:
  ModelInfo info_;
};

} // namespace maskscope
