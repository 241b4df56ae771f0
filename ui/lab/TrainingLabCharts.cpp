// The lab's three line charts. The x axis is the optimizer step (0 = before training, held-out only);
// the y axes start at 0 and grow to the largest value seen, so both runs share one scale per chart.
#include "ui/lab/TrainingLabCharts.h"
#include "ui/widgets/Sizes.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace maskscope {

namespace {
QFont scaledFont(QFont f, double scale) {
  if (f.pointSizeF() > 0)
    f.setPointSizeF(f.pointSizeF() * scale);
  else
    f.setPixelSize(std::max(1, int(std::lround(f.pixelSize() * scale))));
  return f;
}
} // namespace

QColor trainingRunColour(int run) { return run == 0 ? QColor(0xc6, 0x28, 0x28) : QColor(0x15, 0x65, 0xc0); }

TrainingLabCharts::TrainingLabCharts(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  const QString titles[kCharts] = {tr("Training loss (each run's own collator)"), tr("Held-out loss (correct masks)"),
                                   tr("Pad share of the step's loss")};
  const QString yTitles[kCharts] = {tr("loss"), tr("loss"), tr("share")};
  for (int c = 0; c < kCharts; ++c) {
    auto* chart = new QChart;
    titles_[c] = titles[c];
    chart->setTitle(titles[c]);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->legend()->setAlignment(Qt::AlignBottom);
    xAxis_[c] = new QValueAxis;
    yAxis_[c] = new QValueAxis;
    xAxis_[c]->setTitleText(tr("step"));
    xAxis_[c]->setLabelFormat(QStringLiteral("%d"));
    yAxis_[c]->setTitleText(yTitles[c]);
    chart->addAxis(xAxis_[c], Qt::AlignBottom);
    chart->addAxis(yAxis_[c], Qt::AlignLeft);
    for (int r = 0; r < 2; ++r) {
      series_[c][r] = new QLineSeries;
      series_[c][r]->setPen(QPen(trainingRunColour(r), 2));
      series_[c][r]->setPointsVisible(c == HeldOut); // few held-out points: show each
      chart->addSeries(series_[c][r]);
      series_[c][r]->attachAxis(xAxis_[c]);
      series_[c][r]->attachAxis(yAxis_[c]);
    }
    connect(chart, &QChart::plotAreaChanged, this, [this, c] { fitTicks(c); });
    views_[c] = new QChartView(chart);
    views_[c]->setRenderHint(QPainter::Antialiasing);
    // Readable when docked at the bottom of a 1024 x 768 screen (the panel scrolls there).
    views_[c]->setMinimumSize(kLeastCanvasHeight, kLeastCanvasHeight);
    row->addWidget(views_[c]);
  }
  reset(tr("run A"), tr("run B"), 1);
  QChart* first = views_[0]->chart();
  titleFont_ = first->titleFont();
  legendFont_ = first->legend()->font();
  labelsFont_ = xAxis_[0]->labelsFont();
  axisTitleFont_ = xAxis_[0]->titleFont();
  baseTypePt_ = font().pointSizeF();
}

void TrainingLabCharts::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange && baseTypePt_ > 0) scaleChartText(font().pointSizeF() / baseTypePt_);
}

void TrainingLabCharts::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitTitles();
}

void TrainingLabCharts::fitTitles() {
  for (int c = 0; c < kCharts; ++c) {
    QChart* chart = views_[c]->chart();
    QFont font = scaledFont(titleFont_, scale_);
    // Qt Charts cut a title wider than the chart less its margins; leave a few pixels more.
    const int room = views_[c]->width() - chart->margins().left() - chart->margins().right() - 12;
    if (room <= 0) continue;
    QString title = titles_[c];
    if (QFontMetrics(font).horizontalAdvance(title) > room) {
      // Two lines, broken at the space nearest the middle.
      const qsizetype middle = title.size() / 2;
      qsizetype at = -1;
      for (qsizetype i = 0; i < title.size(); ++i)
        if (title[i] == QLatin1Char(' ') && (at < 0 || std::abs(i - middle) < std::abs(at - middle))) at = i;
      QStringList lines = at < 0 ? QStringList{title} : QStringList{title.left(at), title.mid(at + 1)};
      auto widest = [&lines](const QFont& f) {
        int w = 0;
        for (const QString& l : lines) w = std::max(w, QFontMetrics(f).horizontalAdvance(l));
        return w;
      };
      while (widest(font) > room && font.pointSizeF() > 6) font.setPointSizeF(font.pointSizeF() * 0.9);
      for (QString& l : lines) l = l.toHtmlEscaped();
      title = lines.join(QStringLiteral("<br>"));
    }
    chart->setTitleFont(font);
    if (chart->title() != title) chart->setTitle(title);
  }
}

void TrainingLabCharts::fitTicks(int c) {
  // Qt Charts cut a value label taller than its share of the axis to "...": a short plot (presenter
  // type in a bottom dock) gets fewer labels, each at least 1.5 lines apart.
  const double plot = views_[c]->chart()->plotArea().height();
  const double line = QFontMetrics(yAxis_[c]->labelsFont()).height() * 1.5;
  if (plot <= 0 || line <= 0) return;
  const int most = std::clamp(int(plot / line) + 1, 2, 5);
  if (yAxis_[c]->tickCount() < most) { // room again: the round ticks of append(), or the default five
    if (c != PadShare && yMax_[c] > 0)
      yAxis_[c]->applyNiceNumbers();
    else
      yAxis_[c]->setTickCount(5);
  }
  if (yAxis_[c]->tickCount() > most) yAxis_[c]->setTickCount(most);
}

void TrainingLabCharts::scaleChartText(double scale) {
  scale_ = scale;
  auto scaled = [scale](const QFont& f) { return scaledFont(f, scale); };
  // Larger type needs a taller chart for the same plot: title, legend and the axis labels and
  // title grow (at 1.6x and 150 px the step axis was cut to "...").
  for (QChartView* v : views_)
    v->setMinimumHeight(int(std::lround(kLeastCanvasHeight * (scale > 1.0 ? scale * 1.25 : 1.0))));
  for (int c = 0; c < kCharts; ++c) {
    QChart* chart = views_[c]->chart();
    chart->setTitleFont(scaled(titleFont_));
    chart->legend()->setFont(scaled(legendFont_));
    for (QValueAxis* axis : {xAxis_[c], yAxis_[c]}) {
      axis->setLabelsFont(scaled(labelsFont_));
      axis->setTitleFont(scaled(axisTitleFont_));
    }
  }
  fitTitles();
}

void TrainingLabCharts::reset(const QString& nameA, const QString& nameB, int steps) {
  for (int c = 0; c < kCharts; ++c) {
    for (int r = 0; r < 2; ++r) {
      series_[c][r]->clear();
      series_[c][r]->setName((r == 0 ? tr("A: %1") : tr("B: %1")).arg(r == 0 ? nameA : nameB));
    }
    xAxis_[c]->setRange(0, std::max(1, steps));
    // Whole steps only: five ticks over 0..1 would label "0 0 0 0 1" (the %d format).
    xAxis_[c]->setTickCount(std::clamp(steps + 1, 2, 6));
    yMax_[c] = 0.0;
    yAxis_[c]->setRange(0, 1.0); // shares stay here; losses grow it as points come
  }
}

void TrainingLabCharts::append(Chart c, int run, double x, double y) {
  if (run < 0 || run > 1 || !std::isfinite(y)) return; // a NaN loss (nothing graded) is no point
  series_[c][run]->append(x, y);
  if (y > yMax_[c]) {
    yMax_[c] = y;
    // Shares stay on 0..1; losses get 10 % headroom above the largest value so far.
    if (c != PadShare) {
      yAxis_[c]->setRange(0, y * 1.1);
      yAxis_[c]->applyNiceNumbers(); // round ticks (0.1, 0.2, ...) instead of fifths of the maximum
      fitTicks(c);
    }
  }
}

void TrainingLabCharts::addStep(int run, const TrainStepRecord& r) {
  append(TrainLoss, run, double(r.step), r.trainLoss);
  append(PadShare, run, double(r.step), r.lossShare[RolePad]);
}

void TrainingLabCharts::addHeldOut(int run, const HeldOutRecord& r) { append(HeldOut, run, double(r.step), r.loss); }

int TrainingLabCharts::pointCount(Chart c, int run) const { return int(series_[c][run]->count()); }

} // namespace maskscope
