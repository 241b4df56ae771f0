// The loss view: per-token NLL along the row (graded positions highlighted), the loss as given vs
// with pads not graded vs replies only, the shares of pads / prompt / reply in the loss and in the
// gradient, and the dilution arithmetic for the selected row. Per-token losses come from the
// forward engine when a model ran, otherwise from editable per-role example losses (no model needed:
// the counts come from the batch).
#pragma once
#include "core/data/Batch.h"
#include "core/forward/LossPlan.h" // LossBreakdown: the loss arithmetic lives in core

#include <QWidget>
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
  void setExampleLosses(double prompt, double reply, double pad);
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
};

} // namespace maskscope
