// Legend and model controls above the attention grid.
#include "ui/views/attention/AttentionView.h"
#include "ui/shell/Session.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/LayerSpinBox.h"
#include "ui/widgets/CellSwatch.h"
#include "ui/widgets/FlowLayout.h"
#include "ui/widgets/Palette.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPixmap>
#include <QResizeEvent>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace maskscope {

namespace {

// A swatch painted as the grid paints the class (colour, stripes, glyph) in the current theme.
// The side in px: 18 at normal type, scaled with presenter mode's legend.
QPixmap swatch(CellClass c, bool greyed, int side) { return QPixmap::fromImage(cellClassSwatch(c, greyed, side)); }

// The swatch and the class's name; the swatch keeps its class so a theme switch repaints it.
QWidget* legendItem(CellClass c, const QString& text, QWidget* parent, bool greyed = false) {
  const QPixmap pm = swatch(c, greyed, 18);
  auto* w = new QWidget(parent);
  auto* l = new QHBoxLayout(w);
  l->setContentsMargins(0, 0, 6, 0);
  auto* sw = new QLabel(w);
  sw->setObjectName(cellClassSwatchName(c, greyed));
  sw->setProperty("cellClass", int(c));
  sw->setProperty("greyed", greyed);
  sw->setPixmap(pm);
  sw->setFixedSize(18, 18);
  l->addWidget(sw);
  auto* label = new QLabel(text, w);
  label->setObjectName(QStringLiteral("legend:%1").arg(QString::fromLatin1(cellClassName(c))));
  l->addWidget(label);
  return w;
}

// Where every implementation gives the batch the same mask: the implementation the grid follows and
// why, in one short line (the whole rule in the tooltip), so the grid keeps its room.
QString agreedRule(const Session& session) {
  const AttnChoice& c = session.attnChoice();
  const QString name = QString::fromLatin1(attnImplementationName(c.implementation));
  const QString how = c.assumed ? QStringLiteral(" (assumed: %1)").arg(QString::fromStdString(c.why)) : QString();
  return AttentionView::tr("attention: %1%2 \u2014 every implementation gives this batch the same mask").arg(name, how);
}

} // namespace

AttentionView::AttentionView(Session* session, QWidget* parent) : QWidget(parent) {
  auto* gl = new QVBoxLayout(this);
  gl->setContentsMargins(0, 0, 0, 0);
  legend_ = buildLegend();
  // The legend's type follows presenter mode (setPresenterScale), not the application font: its items
  // flow in lines for the larger type, as wide as the centre.
  legendFont_ = font();
  legendFont_.setPointSizeF(legendFont_.pointSizeF()); // marks the size as set: the app font no longer reaches it
  legend_->setFont(legendFont_);
  layOutLegend(false);
  legend_->installEventFilter(this); // its entries shown or hidden: its height for the width again
  gl->addWidget(legend_);
  syncWindowBox();
  attentionRule_ = new QLabel(this);
  attentionRule_->setObjectName(QStringLiteral("attentionRule"));
  // Wrapped at the view's width (never widens it, never cut at the window's edge).
  QSizePolicy wrapped(QSizePolicy::Ignored, QSizePolicy::Minimum);
  wrapped.setHeightForWidth(true); // its height follows the width it is given
  attentionRule_->setSizePolicy(wrapped);
  attentionRule_->setWordWrap(true);
  attentionRule_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  gl->addWidget(attentionRule_);
  session_ = session;
  connect(session, &Session::attentionChanged, this, &AttentionView::showRule);
  showRule();
  grid_ = new AttentionGridCanvas(session, this);
  gl->addWidget(grid_, 1);
  connect(grid_, &AttentionGridCanvas::viewChanged, this, &AttentionView::updatePadQueryLegend);
  updatePadQueryLegend();
  setFocusProxy(grid_);
  // The least height is the legend's and the grid's (its margins and 100 px of cells): with two
  // lines of chips it fits the centre of a 1024 x 768 window beside the docks, presenter mode
  // included, so the grid's bottom is never cut off.
}

// Presenter mode on a projector: the line only where the implementation changes the mask (the grid
// keeps the room); normal type: always, the short form where every implementation agrees.
void AttentionView::showRule() {
  const QString rule = session_->attentionRule();
  attentionRule_->setText(session_->attentionMatters() ? rule : agreedRule(*session_));
  attentionRule_->setToolTip(rule);
  // The BERT aside's step text already says the grid is bidirectional: on a projector the grid keeps
  // the room (the line stays in the tooltip and in normal type).
  const bool asideOnProjector = presenterLegend_ && session_->maskedLmAside();
  attentionRule_->setVisible(!rule.isEmpty() && !asideOnProjector &&
                             (session_->attentionMatters() || !presenterLegend_));
  fitRuleHeight();
}

void AttentionView::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  fitRuleHeight();
  fitLegendHeight();
}

bool AttentionView::eventFilter(QObject* watched, QEvent* e) {
  if (watched == legend_ && e->type() == QEvent::LayoutRequest) fitLegendHeight();
  return QWidget::eventFilter(watched, e);
}

// Presenter mode: the legend's rows wrap (flow layouts), so it is as tall as its rows wrapped at the
// view's width; a parent layout reads least heights only, never a height for a width. Normal type:
// its rows never wrap, and its least height is theirs.
void AttentionView::fitLegendHeight() {
  if (!presenterLegend_) {
    if (legend_->minimumHeight() > 0 || legend_->maximumHeight() < QWIDGETSIZE_MAX) {
      legend_->setMinimumHeight(0);
      legend_->setMaximumHeight(QWIDGETSIZE_MAX);
    }
    return;
  }
  const int h = legend_->layout()->heightForWidth(std::max(1, width()));
  if (h > 0 && (h != legend_->minimumHeight() || h != legend_->maximumHeight())) legend_->setFixedHeight(h);
}

// After the events in flight (a font or type change reaches the label after the view's own change):
// the height for the label's settled font and width, so the window never grows for a passing state.
void AttentionView::fitRuleHeight() {
  QTimer::singleShot(0, this, [this] {
    if (attentionRule_->isHidden()) return;
    const int h = attentionRule_->heightForWidth(std::max(1, width()));
    if (h > 0 && h != attentionRule_->maximumHeight()) attentionRule_->setFixedHeight(h);
  });
}

void AttentionView::setPresenterScale(double scale) {
  legendScale_ = scale;
  QFont f = legendFont_;
  f.setPointSizeF(legendFont_.pointSizeF() * scale);
  legend_->setFont(f);
  presenterLegend_ = scale > 1.0;
  layOutLegend(presenterLegend_);
  fitLegendHeight();
  showRule();
  refreshLegend();        // the swatches at the new size
  updatePadQueryLegend(); // presenter mode folds the packing entries of an unpacked row
}

// Presenter mode: how much taller the legend gets if every folded entry comes back (a teaching step
// that brings packed rows or graded pads), at the view's width: a bottom dock beside the tab group
// leaves the centre that room, so the step's buttons stay where they are. Normal type: 0.
int AttentionView::foldedLegendHeight() const {
  if (!presenterLegend_) return 0;
  auto* rows = static_cast<QVBoxLayout*>(legend_->layout());
  auto* flow = rows->count() ? dynamic_cast<FlowLayout*>(rows->itemAt(0)->layout()) : nullptr;
  const int w = std::max(1, width());
  return flow ? flow->heightWithHidden(w) - flow->heightForWidth(w) : 0;
}

// Normal type: three rows (what the mask does with the controls; the leaks; the band, greyed rows
// and strips). Presenter type: the same items flowing in lines as wide as the view; the entries the
// shown row lacks (packing, a band, graded pads) fold away, so that the grid keeps its room on a
// 1024 x 768 projector.
void AttentionView::layOutLegend(bool presenter) {
  delete legend_->layout(); // its row layouts go with it; the items (children of the legend) stay
  auto* rows = new QVBoxLayout(legend_);
  rows->setContentsMargins(0, 0, 0, 0);
  rows->setSpacing(2);
  auto row = [rows](const QList<QWidget*>& items, const QList<QWidget*>& right = {}) {
    auto* line = new QHBoxLayout();
    for (QWidget* w : items) line->addWidget(w);
    line->addStretch();
    for (QWidget* w : right) line->addWidget(w);
    rows->addLayout(line);
  };
  const LegendItems& i = legendItems_;
  if (presenter) {
    // One flow, wrapped at the view's width (the teaching steps beside the centre leave it ~600 px):
    // what the mask does, a padding key allowed beside padding blocked, the pad query rows, the packed
    // rows' entries, a band, graded pad query rows, the strips; the controls last.
    // The flow spaces the entries: none of their own trailing margin (a line's last one would waste it).
    for (QWidget* item : legend_->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
      if (item->layout()) item->layout()->setContentsMargins(0, 0, 0, 0);
    auto* flow = new FlowLayout(10, 2);
    for (QWidget* w :
         i.mask + QList<QWidget*>{i.leaks[1], i.band[1], i.leaks[0], i.leaks[2], i.band[0], i.band[2], i.band[3]} +
             i.controls)
      flow->addWidget(w);
    rows->addLayout(flow);
  } else {
    for (QWidget* item : legend_->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
      if (item->layout()) item->layout()->setContentsMargins(0, 0, 6, 0);
    row(i.mask, i.controls);
    row(i.leaks);
    row(i.band);
  }
}

void AttentionView::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::PaletteChange) refreshLegend();
  if (e->type() == QEvent::FontChange) fitRuleHeight();
}

// The theme changed (View > Dark theme): the swatches and the strip colours follow it.
void AttentionView::refreshLegend() {
  for (QLabel* l : findChildren<QLabel*>())
    if (l->property("cellClass").isValid()) {
      const int side = int(std::lround(18 * legendScale_));
      l->setPixmap(swatch(CellClass(l->property("cellClass").toInt()), l->property("greyed").toBool(), side));
      l->setFixedSize(side, side);
    }
  if (strips_) strips_->setText(stripsText());
  if (gradedPadLegend_) gradedPadLegend_->setText(gradedPadText());
}

QString AttentionView::gradedPadText() {
  return tr("<span style='color:%1'>&#9632;</span> pad query row, output graded (a bug)")
      .arg(palette::gradedPad().name());
}

// Shows the pad-query entries the shown row needs: neither when it has no pads. In presenter mode
// the other-example entries too only for a row of several examples.
void AttentionView::updatePadQueryLegend() {
  const GridSource& src = grid_->gridSource();
  for (QWidget* w : {legendItems_.leaks[0], legendItems_.leaks[2]})
    w->setVisible(!presenterLegend_ || src.examplesKnown);
  bool unread = false, graded = false;
  for (int64_t q = 0; q < src.size() && !(unread && graded); ++q) {
    unread = unread || src.unreadPadQuery(q);
    graded = graded || src.gradedPadQuery(q);
  }
  unreadPadLegend_->setVisible(unread);
  gradedPadLegend_->setVisible(graded);
}

QString AttentionView::stripsText() {
  return tr("strips: <span style='color:%1'>&#9632;</span> pad "
            "<span style='color:%2'>&#9632;</span> special, colours = example")
      .arg(palette::padding().name(), palette::specialStrip().name());
}

QSpinBox* AttentionView::layerBox() const { return layerBox_; }

ShownLayer AttentionView::shownLayer() const {
  return maskscope::shownLayer(layerBox_->model(), layerBox_->value(), userWindow_);
}

// The box takes the windows a config may give (kMaxSlidingWindow, as engine/ModelConfig caps them).
QSpinBox* AttentionView::buildWindowBox(QWidget* legend) {
  auto* box = new QSpinBox(legend);
  box->setObjectName(QStringLiteral("windowBox"));
  box->setRange(0, int(kMaxSlidingWindow));
  box->setSpecialValueText(tr("full"));
  // As wide as six digits (131072, the longest window of today's configs), not as 16777216: the first
  // legend row sets the centre's least width, which must fit a 1024 px window.
  {
    QSpinBox probe;
    probe.setFont(box->font());
    probe.setRange(0, 999999);
    box->setFixedWidth(probe.sizeHint().width());
  }
  connect(box, &QSpinBox::valueChanged, this, [this](int v) {
    userWindow_ = v; // programmatic updates (a layout's window) are made with the signal blocked
    updateWindowLegend();
    Q_EMIT layerAttentionChanged();
  });
  connect(layerBox_, &QSpinBox::valueChanged, this, &AttentionView::syncWindowBox);
  connect(layerBox_, &LayerSpinBox::modelChanged, this, &AttentionView::syncWindowBox);
  return box;
}

// With a layout the box shows the picked layer's window, disabled; without one the user's again.
void AttentionView::syncWindowBox() {
  const bool layout = layerBox_->hasLayout();
  {
    QSignalBlocker block(windowBox_);
    windowBox_->setEnabled(!layout);
    windowBox_->setValue(int(layout ? layerWindow(layerBox_->model(), layerBox_->value()) : userWindow_));
  }
  QString tip = layout ? tr("The model decides each layer's window (its weights or its config.json): this is layer "
                            "%1's (pick another layer to see its own).")
                             .arg(layerBox_->value())
                       : tr("Draw a sliding-window layer's band of N keys in the grid and the softmax view (each "
                            "query sees its N most recent keys, itself included); full = full attention.");
  if (layout && userWindow_ > 0)
    tip += tr(" Your window of %1 keys applies again once no model is loaded.").arg(userWindow_);
  windowBox_->setToolTip(tip);
  updateWindowLegend();
  Q_EMIT layerAttentionChanged();
}

// Hidden, not removed; its row keeps the pad query row and the strips, which apply to every model.
void AttentionView::updateWindowLegend() {
  const ModelInfo& m = layerBox_->model();
  const bool sliding = std::any_of(m.layerAttention.begin(), m.layerAttention.end(),
                                   [](const LayerAttentionInfo& l) { return l.sliding && l.window > 0; });
  windowLegend_->setVisible(layerBox_->hasLayout() ? sliding : userWindow_ > 0);
}

// The legend's items (layOutLegend arranges them in rows): what the mask does, the layer, head,
// window and mode controls, what a reader must not miss (another example's keys, blocked or
// leaking), and the band, greyed rows and strips.
QWidget* AttentionView::buildLegend() {
  auto* legend = new QWidget(this);
  LegendItems& i = legendItems_;
  i.mask = {new QLabel(tr("<b>Attention</b>:"), legend), legendItem(CellClass::Allowed, tr("allowed"), legend),
            legendItem(CellClass::Future, tr("future (causal)"), legend),
            legendItem(CellClass::Padding, tr("padding"), legend)};
  layerBox_ = new LayerSpinBox(legend);
  headBox_ = new QSpinBox(legend);
  windowBox_ = buildWindowBox(legend);
  modeBox_ = new QComboBox(legend);
  modeBox_->addItem(tr("mask"));
  modeBox_->addItem(tr("attention probabilities (model)"));
  modeBox_->setObjectName(QStringLiteral("gridMode"));
  // Sized to "mask", not to the long second item: the legend row sets the centre's least width, and
  // a 1024 px window then still leaves the dataset browser a usable column.
  modeBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  modeBox_->setMinimumContentsLength(12);
  modeBox_->setToolTip(tr("Load a model (Model menu) to see real attention probabilities"));
  i.controls = {new QLabel(tr("layer"), legend),
                layerBox_,
                new QLabel(tr("head"), legend),
                headBox_,
                new QLabel(tr("window"), legend),
                windowBox_,
                modeBox_};
  // A wrapped legend row (presenter mode) keeps each label on the line of what it names.
  for (QWidget* label : {i.mask[0], i.controls[0], i.controls[2], i.controls[4]}) FlowLayout::setKeepWithNext(label);
  // "other example" beside the leak it is confused with.
  i.leaks = {
      legendItem(CellClass::OtherExample, tr("other example"), legend),
      legendItem(CellClass::AllowedPad, tr("allowed, but this key is padding"), legend),
      legendItem(CellClass::AllowedOtherExample, tr("allowed, but this key belongs to another example"), legend)};
  // No word wrap inside an entry: a presenter row wraps between entries (layOutLegend).
  windowLegend_ = legendItem(CellClass::OutsideWindow, tr("outside the window (sliding layer)"), legend);
  // Pad query rows as the shown row has them: greyed where nothing reads their output, or (the bug
  // labels=all makes) graded, marked red on the query strip and never greyed.
  unreadPadLegend_ = legendItem(CellClass::Allowed, tr("pad query row (output unread)"), legend, true);
  gradedPadLegend_ = new QLabel(gradedPadText(), legend);
  gradedPadLegend_->setObjectName(QStringLiteral("legend:graded pad query"));
  strips_ = new QLabel(stripsText(), legend);
  i.band = {windowLegend_, unreadPadLegend_, gradedPadLegend_, strips_};
  return legend;
}

} // namespace maskscope
