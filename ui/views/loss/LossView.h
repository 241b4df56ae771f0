// The loss view: per-token NLL along the row (graded positions highlighted, the y-axis scaled to
// them, a tooltip per bar), the loss as given vs fixed (block-diagonal for a packed row) vs replies
// only, the shares of pads / prompt / reply in the loss and in the graded tokens, the engine's
// measured gradient share of pads, and the dilution arithmetic for the selected row. Per-token
// losses come from the forward engine when a model ran, otherwise from editable per-role example
// losses (no model needed: the counts come from the batch; the gradient then is not measured).
#pragma once
#include "core/data/Batch.h"
#include "core/forward/LossPlan.h" // LossBreakdown: the loss arithmetic lives in core

#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

class QDoubleSpinBox;
class QLabel;

namespace maskscope {

class Session;

class LossChart;

class LossView : public QWidget {
  Q_OBJECT
public:
  explicit LossView(Session* session, QWidget* parent = nullptr);

  // Per-token NLL from the model for the session's batch ([B][T], docs/cli.md's convention:
  // [b][t] = NLL of token t+1); empty = example losses.
  void setModelNll(std::vector<std::vector<double>> nll, const QString& label);
  // The engine's analysis of the selected row (ModelRun::rowReport): measured gradient norms and the
  // fixed / block-diagonal losses. Cleared with the batch.
  void setRowReport(const std::optional<LossReport>& report, const QString& error = {});
  void setExampleLosses(double prompt, double reply, double pad);
  const std::optional<LossReport>& rowReport() const { return report_; }
  bool rowIsPacked() const { return packed_; }
  // The "fixed" loss shown: from the row report (block-diagonal when packed), else pads-not-graded
  // from the per-token losses for an unpacked row; NaN for a packed row without a model.
  double fixedLoss() const;
  // The chart's y-axis top: the largest per-token loss among graded terms (all terms when none is graded).
  double axisMax() const;
  // The tooltip of a chart point ("" outside bars); the chart shows it on hover.
  QString toolTipAt(QPoint chartPos) const;
  QRect plotRect() const { return plot_; } // the per-token plot as last painted on the chart
  const LossBreakdown& breakdown() const { return breakdown_; }
  const std::vector<double>& perToken() const { return nll_; }
  bool fromModel() const { return !modelNll_.empty(); }
  QString dilutionText() const;
  void render(QPainter& p, QRect area) const;
  QWidget* chart() const;

private:
  int paintNllPlot(QPainter& p, QRect box, int plotHeight) const;
  void recompute();

  Session* session_;
  LossChart* chart_ = nullptr;
  QDoubleSpinBox* promptLoss_ = nullptr;
  QDoubleSpinBox* replyLoss_ = nullptr;
  QDoubleSpinBox* padLoss_ = nullptr;
  QLabel* sourceLabel_ = nullptr;
  std::vector<std::vector<double>> modelNll_;
  QString modelLabel_;
  std::vector<double> nll_; // per target position
  IntGrid roles_;
  LossBreakdown breakdown_;
  std::optional<LossReport> report_;
  QString reportError_;
  bool packed_ = false;
  mutable QRect plot_;                                   // last painted plot, for tooltips
  mutable std::vector<std::pair<QRectF, QString>> tips_; // last painted share segments
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in LossViewSpec.cpp.
struct ViewSpec;
ViewSpec lossViewSpec();

} // namespace maskscope
