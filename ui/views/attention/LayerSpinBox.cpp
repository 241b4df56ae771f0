// Layer picker text from the model's per-layer attention (core/forward/LayerAttention).
#include "ui/views/attention/LayerSpinBox.h"
#include "core/forward/LayerAttention.h"

#include <QLineEdit>

namespace maskscope {

LayerSpinBox::LayerSpinBox(QWidget* parent) : QSpinBox(parent) {
  setObjectName(QStringLiteral("layerPicker"));
  setToolTip(tr("Decoder layer whose attention is shown (load a model to see which layers slide)"));
}

void LayerSpinBox::setModel(const ModelInfo& info) {
  info_ = info;
  setRange(0, std::max(0, int(info.layers) - 1));
  setToolTip(
      info.layers > 0
          ? tr("Decoder layer whose attention is shown.\n%1").arg(QString::fromStdString(layerAttentionSummary(info)))
          : tr("Decoder layer whose attention is shown"));
  updateGeometry(); // the text width depends on the layers' kinds
  lineEdit()->setText(textFromValue(value()));
  Q_EMIT modelChanged();
}

int64_t LayerSpinBox::windowOf(int layer) const { return layerWindow(info_, layer); }

QString LayerSpinBox::describe(int layer) const {
  if (layer < 0 || layer >= int(info_.layerAttention.size())) return {};
  return tr("layer %1 \u2014 %2").arg(layer).arg(QString::fromStdString(layerKindText(info_, layer)));
}

QString LayerSpinBox::textFromValue(int value) const {
  if (value < 0 || value >= int(info_.layerAttention.size())) return QString::number(value);
  // The window's size is in the window box beside the picker: the kind alone keeps the picker narrow
  // enough for the dataset column at 1024 px.
  return windowOf(value) > 0 ? tr("%1 \u00b7 sliding").arg(value) : tr("%1 \u00b7 full").arg(value);
}

// The leading number is the layer; the words after it are the picker's own.
int LayerSpinBox::valueFromText(const QString& text) const {
  int n = 0;
  while (n < text.size() && text[n].isDigit()) ++n;
  return text.left(n).toInt();
}

QValidator::State LayerSpinBox::validate(QString& text, int&) const {
  int n = 0;
  while (n < text.size() && text[n].isDigit()) ++n;
  if (n == 0) return text.trimmed().isEmpty() ? QValidator::Intermediate : QValidator::Invalid;
  const int v = text.left(n).toInt();
  return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
}

} // namespace maskscope
