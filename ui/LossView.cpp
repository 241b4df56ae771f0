// The loss view's charts; the breakdown arithmetic is core/forward/LossPlan's computeLossBreakdown.
#include "ui/LossView.h"
#include "core/forward/LossPlan.h"
#include "ui/Palette.h"
#include "ui/Session.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

namespace maskscope {

namespace {
const char* roleName(int r) { return positionRoleName(PositionRole(r)); }
QColor roleColour(int r) {
  switch (r) {
  case RolePrompt:
    return palette::roleColour(PositionKind::User).darker(115);
  case RoleReply:
    return palette::roleColour(PositionKind::Assistant);
  case RolePad:
    return palette::padding();
  default:
    return palette::ignored();
  }
}
QString pct(double v) {
  return std::isnan(v) ? QStringLiteral("-") : QString::number(100.0 * v, 'f', 1) + QStringLiteral(" %");
}
QString num(double v) { return std::isnan(v) ? QStringLiteral("n/a") : QString::number(v, 'f', 3); }
// The shares of the loss, the gradient and the graded tokens as stacked bars, and a legend (text,
// so greyscale still reads); returns the y below them.
int drawShares(QPainter& p, const QFont& font, const QColor& text, const LossBreakdown& d, int x0, int y, int w,
               int lh) {
  const int labelW = 170;
  auto stacked = [&](const QString& name, auto share) {
    p.setFont(font);
    p.setPen(text);
    p.drawText(QRect(x0, y, labelW - 6, lh), Qt::AlignRight | Qt::AlignVCenter, name);
    double x = x0 + labelW;
    const double full = w - labelW;
    for (int role = 0; role < kRoleCount; ++role) {
      const double s = share(role);
      if (std::isnan(s) || s <= 0) continue;
      QRectF seg(x, y + 2, s * full, lh - 4);
      p.fillRect(seg, roleColour(role));
      p.setPen(QColor(0x10, 0x10, 0x10));
      if (seg.width() > 70)
        p.drawText(seg, Qt::AlignCenter, QStringLiteral("%1 %2").arg(QLatin1String(roleName(role))).arg(pct(s)));
      x += seg.width();
    }
    y += lh + 2;
  };
  stacked(LossView::tr("share of the loss"), [&](int role) { return d.lossShare(role); });
  stacked(LossView::tr("share of the gradient"), [&](int role) { return d.gradientShare(role); });
  stacked(LossView::tr("graded tokens"),
          [&](int role) { return d.total() ? double(d.graded[role]) / double(d.total()) : 0.0; });
  p.setFont(font);
  int lx = x0 + labelW;
  for (int role = 0; role < kRoleCount; ++role) {
    p.fillRect(QRect(lx, y + 4, 12, 12), roleColour(role));
    p.setPen(text);
    const QString s = LossView::tr("%1: %2 graded").arg(QLatin1String(roleName(role))).arg(d.graded[role]);
    p.drawText(QRect(lx + 16, y, 200, lh), Qt::AlignLeft | Qt::AlignVCenter, s);
    lx += 20 + QFontMetrics(font).horizontalAdvance(s) + 16;
  }
  y += lh + 6;
  return y;
}
} // namespace

class LossChart : public QWidget {
public:
  explicit LossChart(LossView* view) : QWidget(view), view_(view) { setMinimumHeight(280); }
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    view_->render(p, rect());
  }
  LossView* view_;
};

LossView::LossView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  auto spin = [this](double v) {
    auto* s = new QDoubleSpinBox(this);
    s->setRange(0.0, 50.0);
    s->setSingleStep(0.1);
    s->setDecimals(2);
    s->setValue(v);
    connect(s, &QDoubleSpinBox::valueChanged, this, &LossView::recompute);
    return s;
  };
  promptLoss_ = spin(2.0);
  replyLoss_ = spin(1.0);
  padLoss_ = spin(0.05);
  bar->addWidget(new QLabel(tr("Example per-token loss: prompt"), this));
  bar->addWidget(promptLoss_);
  bar->addWidget(new QLabel(tr("reply"), this));
  bar->addWidget(replyLoss_);
  bar->addWidget(new QLabel(tr("pad"), this));
  bar->addWidget(padLoss_);
  auto* reset = new QPushButton(tr("2.0 / 1.0 (dilution example)"), this);
  connect(reset, &QPushButton::clicked, this, [this] { setExampleLosses(2.0, 1.0, 0.05); });
  bar->addWidget(reset);
  bar->addStretch();
  layout->addLayout(bar);
  sourceLabel_ = new QLabel(this);
  sourceLabel_->setWordWrap(true);
  layout->addWidget(sourceLabel_);
  chart_ = new LossChart(this);
  layout->addWidget(chart_, 1);
  connect(session_, &Session::batchChanged, this, [this] {
    modelNll_.clear();
    recompute();
  });
  connect(session_, &Session::positionChanged, chart_, qOverload<>(&QWidget::update));
  recompute();
}

QWidget* LossView::chart() const { return chart_; }

void LossView::setModelNll(std::vector<std::vector<double>> nll, const QString& label) {
  modelNll_ = std::move(nll);
  modelLabel_ = label;
  recompute();
}

void LossView::setExampleLosses(double prompt, double reply, double pad) {
  QSignalBlocker a(promptLoss_), b(replyLoss_), c(padLoss_);
  promptLoss_->setValue(prompt);
  replyLoss_->setValue(reply);
  padLoss_->setValue(pad);
  recompute();
}

void LossView::recompute() {
  nll_.clear();
  roles_ = IntGrid();
  breakdown_ = LossBreakdown();
  const bool model = !modelNll_.empty();
  promptLoss_->setEnabled(!model);
  replyLoss_->setEnabled(!model);
  padLoss_->setEnabled(!model);
  if (session_->hasBatch()) {
    const Batch& b = session_->batch();
    const int r = session_->batchRow();
    try {
      roles_ = positionRoles(b);
    } catch (const std::exception&) {
      roles_ = IntGrid();
    }
    nll_.assign(size_t(b.length()), 0.0);
    for (int64_t t = 1; t < b.length(); ++t) {
      if (model && size_t(r) < modelNll_.size() && size_t(t - 1) < modelNll_[size_t(r)].size()) {
        nll_[size_t(t)] = modelNll_[size_t(r)][size_t(t - 1)]; // [t-1] predicts token t
      } else {
        const int role = roles_.sameShape(b.inputIds) ? int(roles_.at(r, t)) : int(RoleUnknown);
        nll_[size_t(t)] = role == RoleReply ? replyLoss_->value()
                          : role == RolePad ? padLoss_->value()
                                            : promptLoss_->value();
      }
    }
    breakdown_ = computeLossBreakdown(b, r, nll_, roles_);
  }
  sourceLabel_->setText(
      model ? tr("Per-token NLL from the model (%1).").arg(modelLabel_)
            : tr("No model loaded: per-token losses are the example values above (load a model to see real ones); "
                 "the counts are this row's graded positions."));
  chart_->update();
}

QString LossView::dilutionText() const {
  const LossBreakdown& d = breakdown_;
  if (d.total() == 0) return tr("This row grades no token: its loss is undefined (NaN) and it teaches nothing.");
  QStringList parts;
  for (int r = 0; r < kRoleCount; ++r)
    if (d.graded[r])
      parts << tr("%1 %2 tokens at %3")
                   .arg(d.graded[r])
                   .arg(QLatin1String(roleName(r)))
                   .arg(num(d.sum[r] / double(d.graded[r])));
  QString s = tr("This row grades %1: summed loss %2 over %3 terms, mean %4. ")
                  .arg(parts.join(QStringLiteral(", ")))
                  .arg(num(d.totalSum()))
                  .arg(d.total())
                  .arg(num(d.asGiven()));
  s += tr("The reply is %1 of the loss and %2 of the gradient")
           .arg(pct(d.lossShare(RoleReply)))
           .arg(pct(d.gradientShare(RoleReply)));
  if (d.graded[RolePrompt] || d.graded[RolePad])
    s += tr(" - the rest teaches the model to %1.")
             .arg(d.graded[RolePad] ? tr("predict padding and prompts") : tr("predict the prompt"));
  else
    s += QLatin1Char('.');
  return s;
}

void LossView::render(QPainter& p, QRect area) const {
  p.fillRect(area, palette().base());
  const QColor text = palette().text().color();
  p.setPen(text);
  if (!session_->hasBatch() || nll_.empty()) {
    p.drawText(area, Qt::AlignCenter, tr("No batch"));
    return;
  }
  QFont bold = font();
  bold.setBold(true);
  const int lh = QFontMetrics(font()).height() + 4;
  const int x0 = area.left() + 8, w = area.width() - 16;
  int y = area.top() + 6;

  // 1. Per-token NLL along the row; graded terms solid, ungraded faint.
  y = paintNllPlot(p, QRect(x0, y, w, area.height()), area.height() * 38 / 100);

  // 2. Totals and shares as stacked bars.
  const LossBreakdown& d = breakdown_;
  p.setFont(bold);
  p.drawText(QRect(x0, y, w, lh), Qt::AlignLeft,
             tr("Loss as given %1   |   pads not graded %2   |   replies only %3")
                 .arg(num(d.asGiven()))
                 .arg(num(d.padsNotGraded()))
                 .arg(num(d.repliesOnly())));
  y += lh + 2;
  y = drawShares(p, font(), text, d, x0, y, w, lh);
  // 3. The dilution arithmetic.
  p.setPen(text);
  p.drawText(QRect(x0, y, w, area.bottom() - y), Qt::TextWordWrap,
             dilutionText() + tr("\nWorked example: 200 prompt tokens at 2.0 and 40 reply tokens at 1.0 give 400 + 40 "
                                 "= 440; the reply is 40 / 440 = 9.1 % of the loss."));
}

// Section 1 of render(): the per-token loss bars from box's top; returns the y below the plot.
int LossView::paintNllPlot(QPainter& p, QRect box, int plotHeight) const {
  const Batch& b = session_->batch();
  const int r = session_->batchRow();
  const QColor text = palette().text().color();
  QFont bold = font();
  bold.setBold(true);
  const int lh = QFontMetrics(font()).height() + 4;
  const int x0 = box.left(), w = box.width();
  int y = box.top();
  p.setFont(bold);
  p.drawText(QRect(x0, y, w, lh), Qt::AlignLeft,
             tr("Per-token loss along row %1 (solid = graded, faint = -100; colour = role of the predicted token)")
                 .arg(session_->selectedRow()));
  y += lh;
  const int plotH = std::max(60, plotHeight);
  const QRect plot(x0 + 40, y, w - 40, plotH);
  double maxV = 0.1;
  for (double v : nll_) maxV = std::max(maxV, v);
  p.setFont(font());
  p.drawText(QRect(x0, plot.top(), 36, lh), Qt::AlignRight, num(maxV).left(4));
  p.drawText(QRect(x0, plot.bottom() - lh, 36, lh), Qt::AlignRight, QStringLiteral("0"));
  const int T = int(nll_.size());
  const double bw = double(plot.width()) / T;
  for (int t = 1; t < T; ++t) {
    const bool graded = b.labels.sameShape(b.inputIds) && b.labels.at(r, t) != kIgnoreIndex;
    const int role = roles_.sameShape(b.inputIds) ? int(roles_.at(r, t)) : int(RoleUnknown);
    QColor c = roleColour(role);
    if (!graded) c.setAlpha(50);
    const double h = nll_[size_t(t)] / maxV * plot.height();
    QRectF bar(plot.left() + t * bw, plot.bottom() - h, std::max(1.0, bw - (bw > 3 ? 1 : 0)), h);
    p.fillRect(bar, c);
    if (graded && bw >= 4) {
      p.setPen(text);
      p.drawLine(QPointF(bar.left(), bar.top()), QPointF(bar.right(), bar.top()));
    }
  }
  const int sel = session_->selectedPosition();
  if (sel >= 0 && sel < T) {
    p.setPen(QPen(palette().highlight().color(), 2));
    p.drawLine(QPointF(plot.left() + (sel + 0.5) * bw, plot.top()),
               QPointF(plot.left() + (sel + 0.5) * bw, plot.bottom()));
  }
  p.setPen(text);
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  y = plot.bottom() + 8;
  return y;
}

} // namespace maskscope
