// The loss view's charts; the breakdown arithmetic is core/forward/LossPlan's computeLossBreakdown.
#include "ui/views/loss/LossView.h"
#include "core/forward/LossPlan.h"
#include "core/mask/RowFacts.h"
#include "ui/shell/Session.h"
#include "ui/widgets/Palette.h"

#include <QApplication>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QToolTip>
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
// One horizontal stacked bar: segments (share, colour, name) after a right-aligned label; each
// segment's rectangle and tooltip go to tips.
struct ShareSegment {
  double share;
  QColor colour;
  QString name;
};
void stackedBar(QPainter& p, const QString& label, const std::vector<ShareSegment>& segments, QRect row, int labelW,
                std::vector<std::pair<QRectF, QString>>& tips) {
  p.setPen(QApplication::palette().text().color());
  p.drawText(QRect(row.left(), row.top(), labelW - 6, row.height()), Qt::AlignRight | Qt::AlignVCenter, label);
  double x = row.left() + labelW;
  const double full = row.width() - labelW;
  for (const ShareSegment& s : segments) {
    if (std::isnan(s.share) || s.share <= 0) continue;
    QRectF seg(x, row.top() + 2, s.share * full, row.height() - 4);
    p.fillRect(seg, s.colour);
    p.setPen(QColor(0x10, 0x10, 0x10));
    const QString text = QStringLiteral("%1 %2").arg(s.name, pct(s.share));
    if (seg.width() > QFontMetrics(p.font()).horizontalAdvance(text) + 6) p.drawText(seg, Qt::AlignCenter, text);
    tips.emplace_back(seg, QStringLiteral("%1: %2 %3").arg(label, s.name, pct(s.share)));
    x += seg.width();
  }
}

// The shares of the loss and of the graded tokens by role, the measured gradient share of pads
// (or why it is not measured), and a legend (text, so greyscale still reads); returns the y below.
int drawShares(QPainter& p, const QFont& font, const QColor& text, const LossBreakdown& d,
               const std::optional<LossReport>& report, QRect box, int lh,
               std::vector<std::pair<QRectF, QString>>& tips) {
  const int labelW = 170, x0 = box.left(), w = box.width();
  int y = box.top();
  p.setFont(font);
  auto byRole = [&](auto share) {
    std::vector<ShareSegment> segs;
    for (int role = 0; role < kRoleCount; ++role)
      segs.push_back({share(role), roleColour(role), QLatin1String(roleName(role))});
    return segs;
  };
  stackedBar(p, LossView::tr("share of the loss"), byRole([&](int r) { return d.lossShare(r); }), QRect(x0, y, w, lh),
             labelW, tips);
  y += lh + 2;
  // The denominator named: the graded positions (labels kept at t >= 1, the ones that reach the loss).
  stackedBar(p, LossView::tr("share of the %1 graded").arg(d.total()), byRole([&](int r) { return d.tokenShare(r); }),
             QRect(x0, y, w, lh), labelW, tips);
  y += lh + 2;
  const double padShare = report ? padGradientShare(*report) : std::nan("");
  if (!std::isnan(padShare)) {
    stackedBar(p, LossView::tr("share of the gradient"),
               {{padShare, roleColour(RolePad), LossView::tr("pad")},
                {1.0 - padShare, roleColour(RoleReply), LossView::tr("real (prompt + reply)")}},
               QRect(x0, y, w, lh), labelW, tips);
  } else {
    p.setPen(text);
    p.drawText(QRect(x0, y, w, lh), Qt::AlignLeft | Qt::AlignVCenter,
               LossView::tr("share of the gradient: measured by the engine once a model is loaded (Model menu) "
                            "— not the token share"));
  }
  y += lh + 2;
  int lx = x0 + labelW;
  for (int role = 0; role < kRoleCount; ++role) {
    p.fillRect(QRect(lx, y + 4, 12, 12), roleColour(role));
    p.setPen(text);
    const QString s = LossView::tr("%1: %2 graded").arg(QLatin1String(roleName(role))).arg(d.graded[role]);
    const int sw = QFontMetrics(font).horizontalAdvance(s);
    p.drawText(QRect(lx + 16, y, sw + 4, lh), Qt::AlignLeft | Qt::AlignVCenter, s);
    lx += 20 + sw + 16;
  }
  y += lh;
  p.drawText(QRect(x0 + labelW, y, w - labelW, lh), Qt::AlignLeft | Qt::AlignVCenter,
             LossView::tr("reply = the template's generation span (content and end-of-turn); the assistant header "
                          "tokens count as prompt"));
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
  bool event(QEvent* e) override {
    if (e->type() == QEvent::ToolTip) {
      auto* help = static_cast<QHelpEvent*>(e);
      const QString tip = view_->toolTipAt(help->pos());
      if (tip.isEmpty())
        QToolTip::hideText();
      else
        QToolTip::showText(help->globalPos(), tip, this);
      return true;
    }
    return QWidget::event(e);
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
    connect(s, &QDoubleSpinBox::valueChanged, this, [this] {
      session_->setExampleLosses({promptLoss_->value(), replyLoss_->value(), padLoss_->value()});
    });
    return s;
  };
  // The session holds the values (compare reads them too); the boxes edit them.
  promptLoss_ = spin(session_->exampleLosses().prompt);
  replyLoss_ = spin(session_->exampleLosses().reply);
  padLoss_ = spin(session_->exampleLosses().pad);
  bar->addWidget(new QLabel(tr("Example per-token loss: prompt"), this));
  bar->addWidget(promptLoss_);
  bar->addWidget(new QLabel(tr("reply"), this));
  bar->addWidget(replyLoss_);
  bar->addWidget(new QLabel(tr("pad"), this));
  bar->addWidget(padLoss_);
  auto* reset = new QPushButton(tr("2.0 / 1.0 (dilution example)"), this);
  connect(reset, &QPushButton::clicked, this, [this] { session_->setExampleLosses(ExampleLosses{}); });
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
    report_.reset();
    reportError_.clear();
    recompute();
  });
  connect(session_, &Session::positionChanged, chart_, qOverload<>(&QWidget::update));
  connect(session_, &Session::exampleLossesChanged, this, &LossView::syncExampleLosses);
  recompute();
}

QWidget* LossView::chart() const { return chart_; }

void LossView::setModelNll(std::vector<std::vector<double>> nll, const QString& label) {
  modelNll_ = std::move(nll);
  modelLabel_ = label;
  recompute();
}

void LossView::setRowReport(const std::optional<LossReport>& report, const QString& error) {
  report_ = report;
  reportError_ = error;
  recompute();
}

double LossView::fixedLoss() const {
  if (report_)
    if (auto v = fixedLossOf(*report_, packed_)) return *v;
  // Without the engine only the labels can be fixed: a packed row's fix changes attention too.
  return packed_ ? std::nan("") : breakdown_.padsNotGraded();
}

void LossView::setExampleLosses(double prompt, double reply, double pad) {
  session_->setExampleLosses({prompt, reply, pad});
}

void LossView::syncExampleLosses() {
  const ExampleLosses& e = session_->exampleLosses();
  QSignalBlocker a(promptLoss_), b(replyLoss_), c(padLoss_);
  promptLoss_->setValue(e.prompt);
  replyLoss_->setValue(e.reply);
  padLoss_->setValue(e.pad);
  recompute();
}

void LossView::recompute() {
  nll_.clear();
  roles_ = IntGrid();
  breakdown_ = LossBreakdown();
  packed_ = false;
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
    nll_ = exampleNll(b, r, roles_, session_->exampleLosses()); // core's, as compare uses them
    for (int64_t t = 1; t < b.length() && model; ++t)
      if (size_t(r) < modelNll_.size() && size_t(t - 1) < modelNll_[size_t(r)].size())
        nll_[size_t(t)] = modelNll_[size_t(r)][size_t(t - 1)]; // [t-1] predicts token t
    breakdown_ = computeLossBreakdown(b, r, nll_, roles_);
    packed_ = false;
    if (roles_.sameShape(b.inputIds)) {
      const IntGrid segments = packedSegments(b, roles_); // 1, 2, 3, ... per example; 0 = pad
      for (int64_t t = 0; t < segments.cols && !packed_ && segments.rows > r; ++t) packed_ = segments.at(r, t) > 1;
    }
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
  s += tr("The reply is %1 of the loss and %2 of the %3 graded positions")
           .arg(pct(d.lossShare(RoleReply)))
           .arg(pct(d.tokenShare(RoleReply)))
           .arg(d.total());
  if (d.graded[RolePad]) s += tr(" (pads: %1 of them)").arg(pct(d.tokenShare(RolePad)));
  if (report_ && !std::isnan(padGradientShare(*report_)))
    s += tr("; pads carry %1 of the measured gradient").arg(pct(padGradientShare(*report_)));
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
  QString fixedName = packed_ ? tr("fixed (block-diagonal)") : report_ ? tr("fixed") : tr("pads not graded");
  QString fixedValue = num(fixedLoss());
  if (packed_ && !report_) fixedValue = tr("needs a model (attention changes every loss)");
  p.drawText(QRect(x0, y, w, lh), Qt::AlignLeft,
             tr("Loss as given %1   |   %2 %3   |   replies only %4")
                 .arg(num(d.asGiven()), fixedName, fixedValue, num(d.repliesOnly())));
  y += lh + 2;
  tips_.clear();
  y = drawShares(p, font(), text, d, report_, QRect(x0, y, w, lh), lh, tips_);
  // 3. The dilution arithmetic.
  p.setPen(text);
  p.drawText(QRect(x0, y, w, area.bottom() - y), Qt::TextWordWrap,
             dilutionText() + QLatin1Char('\n') + workedExample());
}

QString LossView::lossSource() const {
  if (fromModel()) return tr("the model (%1)").arg(modelLabel_);
  return tr("example per-token losses: prompt %1, reply %2, pad %3")
      .arg(session_->exampleLosses().prompt, 0, 'f', 2)
      .arg(session_->exampleLosses().reply, 0, 'f', 2)
      .arg(session_->exampleLosses().pad, 0, 'f', 2);
}

// The textbook dilution example, its arithmetic computed (a hypothetical row, named as one).
QString LossView::workedExample() {
  const int prompt = 200, reply = 40;
  const double promptLoss = 2.0, replyLoss = 1.0;
  const double sum = prompt * promptLoss + reply * replyLoss;
  return tr("Worked example (a made-up row): %1 prompt tokens at %2 and %3 reply tokens at %4 give %5 + %6 = %7; "
            "the reply is %6 / %7 = %8 % of the loss.")
      .arg(prompt)
      .arg(promptLoss, 0, 'f', 1)
      .arg(reply)
      .arg(replyLoss, 0, 'f', 1)
      .arg(prompt * promptLoss, 0, 'f', 0)
      .arg(reply * replyLoss, 0, 'f', 0)
      .arg(sum, 0, 'f', 0)
      .arg(100.0 * reply * replyLoss / sum, 0, 'f', 1);
}

double LossView::axisMax() const {
  double graded = 0, all = 0;
  for (size_t t = 1; t < nll_.size(); ++t) {
    all = std::max(all, nll_[t]);
    if (session_->hasBatch() && gradedAt(session_->batch(), session_->batchRow(), int64_t(t)))
      graded = std::max(graded, nll_[t]);
  }
  return std::max(0.1, breakdown_.total() > 0 ? graded : all);
}

QString LossView::toolTipAt(QPoint pos) const {
  for (const auto& [rect, tip] : tips_)
    if (rect.contains(pos)) return tip;
  if (!session_->hasBatch() || nll_.size() < 2 || !plot_.contains(pos)) return {};
  const Batch& b = session_->batch();
  const int r = session_->batchRow();
  const int t = int((pos.x() - plot_.left()) * double(nll_.size()) / plot_.width());
  if (t < 1 || t >= int(nll_.size())) return {};
  const bool graded = gradedAt(b, r, t); // reaches the loss (RowFacts.h)
  const int role = roles_.sameShape(b.inputIds) ? int(roles_.at(r, t)) : int(RoleUnknown);
  return tr("position %1 %2 (%3): loss %4 %5")
      .arg(t)
      .arg(session_->tokenText(b.inputIds.at(r, t)).toHtmlEscaped())
      .arg(QLatin1String(roleName(role)))
      .arg(num(nll_[size_t(t)]))
      .arg(graded ? tr("— graded") : tr("— not graded (-100)"));
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
  // Elided where the panel is narrower than the title (presenter type at 1024 px), never cut mid-glyph.
  const QString title =
      tr("Per-token loss along row %1 (solid = graded, faint = -100; colour = role of the predicted token)")
          .arg(session_->selectedRow());
  p.drawText(QRect(x0, y, w, lh), Qt::AlignLeft, QFontMetrics(bold).elidedText(title, Qt::ElideRight, w));
  y += lh;
  const int plotH = std::max(60, plotHeight);
  // The axis labels' column as wide as "0.000" in the type (presenter mode's too).
  const int axisW = std::max(36, QFontMetrics(font()).horizontalAdvance(QStringLiteral("0.000")));
  const QRect plot(x0 + axisW + 4, y, w - axisW - 4, plotH);
  plot_ = plot;
  const double maxV = axisMax();
  p.setFont(font());
  p.drawText(QRect(x0, plot.top(), axisW, lh), Qt::AlignRight, num(maxV).left(4));
  p.drawText(QRect(x0, plot.bottom() - lh, axisW, lh), Qt::AlignRight, QStringLiteral("0"));
  const int T = int(nll_.size());
  const double bw = double(plot.width()) / T;
  for (int t = 1; t < T; ++t) {
    const bool graded = gradedAt(b, r, t); // reaches the loss (RowFacts.h)
    const int role = roles_.sameShape(b.inputIds) ? int(roles_.at(r, t)) : int(RoleUnknown);
    QColor c = roleColour(role);
    if (!graded) c.setAlpha(50);
    // Terms above the axis (ungraded ones may be: the axis follows the graded terms) are cut at the
    // top and marked, so pads cannot flatten the bars that count.
    const double v = nll_[size_t(t)];
    const double h = std::min(v, maxV) / maxV * plot.height();
    QRectF bar(plot.left() + t * bw, plot.bottom() - h, std::max(1.0, bw - (bw > 3 ? 1 : 0)), h);
    p.fillRect(bar, c);
    if (v > maxV) p.fillRect(QRectF(bar.left(), plot.top(), bar.width(), 3), palette::warningText());
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
