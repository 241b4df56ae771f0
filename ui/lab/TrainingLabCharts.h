// The Training lab's live charts (Qt Charts): both runs' training loss per step (as each run's own
// collator and normalisation compute it), both runs' held-out loss under correct masks, and the share
// of each step's loss whose target is a pad. Every point is a number the trainer reported.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <QFont>
#include <QWidget>

class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;

namespace maskscope {

class TrainingLabCharts : public QWidget {
  Q_OBJECT
public:
  enum Chart { TrainLoss = 0, HeldOut = 1, PadShare = 2 };
  static constexpr int kCharts = 3;

  explicit TrainingLabCharts(QWidget* parent = nullptr);

  // Empties every chart for a new pair of runs of `steps` optimizer steps.
  void reset(const QString& nameA, const QString& nameB, int steps);
  void addStep(int run, const TrainStepRecord& record);
  void addHeldOut(int run, const HeldOutRecord& record);
  int pointCount(Chart chart, int run) const;
  QChartView* view(Chart chart) const { return views_[chart]; }

protected:
  // The application's type changed (presenter mode): every chart text follows it, by the same factor.
  void changeEvent(QEvent* event) override;
  // A title wider than its chart (presenter type at 1024 px) breaks into two lines instead of being
  // cut to "...", and its type shrinks only when a line still does not fit.
  void resizeEvent(QResizeEvent* event) override;

private:
  void scaleChartText(double scale);
  void fitTitles();
  void fitTicks(int chart); // as many value labels as the plot's height shows whole (no "...")
  void append(Chart chart, int run, double x, double y);
  QChartView* views_[kCharts] = {};
  QLineSeries* series_[kCharts][2] = {};
  QValueAxis* xAxis_[kCharts] = {};
  QValueAxis* yAxis_[kCharts] = {};
  double yMax_[kCharts] = {};
  // Qt Charts set their own fonts (the chart theme's), which the application's type does not reach:
  // the theme's fonts and the widget's type size they were made for, to scale from.
  double baseTypePt_ = 0;
  double scale_ = 1.0;
  QString titles_[kCharts];
  QFont titleFont_, legendFont_, labelsFont_, axisTitleFont_;
};

// The colours of run A (the bug) and run B (correct) in every part of the lab.
QColor trainingRunColour(int run);

} // namespace maskscope
