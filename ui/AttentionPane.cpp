// Legend and model controls above the attention grid.
#include "ui/AttentionPane.h"
#include "ui/AttentionGridView.h"
#include "ui/Palette.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace maskscope {

namespace {

QWidget* legendItem(CellState state, const QString& text, QWidget* parent) {
  const QColor colour = palette::cellColour(state);
  auto* w = new QWidget(parent);
  auto* l = new QHBoxLayout(w);
  l->setContentsMargins(0, 0, 8, 0);
  auto* swatch = new QLabel(QString(palette::cellGlyph(state)), w);
  swatch->setAlignment(Qt::AlignCenter);
  swatch->setFixedSize(18, 18);
  swatch->setStyleSheet(
      QStringLiteral("background:%1;border:1px solid #666;color:%2;font-weight:bold;")
          .arg(colour.name(), colour.lightness() < 128 ? QStringLiteral("#fff") : QStringLiteral("#222")));
  l->addWidget(swatch);
  l->addWidget(new QLabel(text, w));
  return w;
}

} // namespace

AttentionPane::AttentionPane(Session* session, QWidget* parent) : QWidget(parent) {
  auto* gl = new QVBoxLayout(this);
  gl->setContentsMargins(0, 0, 0, 0);
  gl->addWidget(buildLegend());
  grid_ = new AttentionGridView(session, this);
  gl->addWidget(grid_, 1);
  setFocusProxy(grid_);
  setMinimumHeight(240);
}

QWidget* AttentionPane::buildLegend() {
  auto* legend = new QWidget(this);
  auto* ll = new QHBoxLayout(legend);
  ll->setContentsMargins(0, 0, 0, 0);
  ll->addWidget(new QLabel(tr("<b>Attention</b>:"), legend));
  ll->addWidget(legendItem(CellState::Allowed, tr("allowed"), legend));
  ll->addWidget(legendItem(CellState::Future, tr("future (causal)"), legend));
  ll->addWidget(legendItem(CellState::Padding, tr("padding"), legend));
  ll->addWidget(legendItem(CellState::OtherExample, tr("other example"), legend));
  ll->addStretch();
  ll->addWidget(new QLabel(tr("layer"), legend));
  layerBox_ = new QSpinBox(legend);
  ll->addWidget(layerBox_);
  ll->addWidget(new QLabel(tr("head"), legend));
  headBox_ = new QSpinBox(legend);
  ll->addWidget(headBox_);
  modeBox_ = new QComboBox(legend);
  modeBox_->addItem(tr("mask"));
  modeBox_->addItem(tr("attention probabilities (model)"));
  modeBox_->setObjectName(QStringLiteral("gridMode"));
  // Sized to "mask", not to the long second item: the legend row sets the centre's least width, and
  // a 1024 px window then still leaves the dataset browser a usable column.
  modeBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  modeBox_->setMinimumContentsLength(12);
  modeBox_->setToolTip(tr("Load a model (Model menu) to see real attention probabilities"));
  ll->addWidget(modeBox_);
  return legend;
}

} // namespace maskscope
