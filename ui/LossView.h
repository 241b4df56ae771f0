// The loss view: per-token NLL along the row (graded positions highlighted), the loss as given vs
// with pads not graded vs replies only, the shares of pads / prompt / reply in the loss and in the
// gradient, and the dilution arithmetic for the selected row. Per-token losses come from the
// forward engine when a model ran, otherwise from editable per-role example losses (no model needed:
// the counts come from the batch).
#pragma once
#include "core/data/Batch.h"

#include <QWidget>
#include <vector>

class QDoubleSpinBox;
class QLabel;

namespace maskscope {

class Session;

// The loss arithmetic of one row (pure; tested directly). Graded term t: labels[t] != -100 for
// t >= 1 (the model shifts: the logits at t-1 predict token t), its role is the role of t.
struct LossBreakdown {
  int64_t graded[4] = {0, 0, 0, 0}; // by PositionRole: prompt, reply, pad, unknown
  double sum[4] = {0, 0, 0, 0};
  int64_t total() const { return graded[0] + graded[1] + graded[2] + graded[3]; }
  double totalSum() const { return sum[0] + sum[1] + sum[2] + sum[3]; }
  double asGiven() const;               // mean over every graded term
  double padsNotGraded() const;         // mean without pad terms ("fixed" labels)
  double repliesOnly() const;           // mean over reply terms only
  double lossShare(int role) const;     // share of the summed loss
  double gradientShare(int role) const; // share of the gradient weight: each graded term weighs 1/N
};
// nll[t] = loss of token t (so index t, not t-1); roles from positionRoles().
LossBreakdown computeLossBreakdown(const Batch& batch, int row, const std::vector<double>& nll, const IntGrid& roles);

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
