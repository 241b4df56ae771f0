// Compare mode: the selected row under two collators side by side (token strips, attention grids,
// graded counts and losses: the loaded model's, in a worker, else example per-role losses),
// positions and cells that differ highlighted. The O(T^2) cell
// count runs in a worker for rows longer than asyncCellThreshold() (stale counts are dropped).
#pragma once
#include "core/data/Batch.h"
#include "core/forward/ForwardEngine.h"

#include <QWidget>
#include <memory>
#include <mutex>
#include <vector>

class QComboBox;
class QLabel;

namespace maskscope {

class AttentionGridCanvas;
class Session;
class TokenStripView;

class CompareView : public QWidget {
  Q_OBJECT
public:
  explicit CompareView(Session* session, QWidget* parent = nullptr);

  void setCollators(const QString& a, const QString& b);
  int differingPositions() const;
  // -1 while the count is still running in a worker.
  int64_t differingCells() const { return differingCells_; }
  bool cellDiffPending() const { return differingCells_ < 0; }
  // Rows longer than this count their differing cells in a worker (tests lower it).
  static int asyncCellThreshold();
  static void setAsyncCellThreshold(int positions);
  TokenStripView* stripA() const { return stripA_; }
  TokenStripView* stripB() const { return stripB_; }
  AttentionGridCanvas* gridA() const { return gridA_; }
  AttentionGridCanvas* gridB() const { return gridB_; }
  QString summaryText() const;
  QString sideSummaryText(int side) const; // 0 = A, 1 = B, as shown
  // The loaded model (ModelRunner::model, its lock): each side's row then runs through it (worker).
  void setModel(std::shared_ptr<ForwardModel> model, std::shared_ptr<std::mutex> lock, const QString& label);
  bool modelLossesPending() const { return modelPending_; }

protected:
  void showEvent(QShowEvent* event) override;

private:
  void recompute();
  void recomputeIfVisible();
  QString sideSummary(const Batch& b, int row, const std::vector<double>* modelNll) const;
  void startModelLosses();

  Session* session_;
  QComboBox* boxA_ = nullptr;
  QComboBox* boxB_ = nullptr;
  QLabel* summaryA_ = nullptr;
  QLabel* summaryB_ = nullptr;
  QLabel* diff_ = nullptr;
  TokenStripView* stripA_ = nullptr;
  TokenStripView* stripB_ = nullptr;
  AttentionGridCanvas* gridA_ = nullptr;
  AttentionGridCanvas* gridB_ = nullptr;
  Batch a_, b_;
  int rowA_ = 0, rowB_ = 0;
  int64_t differingCells_ = 0;
  bool dirty_ = true;
  quint64 generation_ = 0; // bumped per recompute; a worker's count for an older one is dropped
  std::shared_ptr<ForwardModel> model_;
  std::shared_ptr<std::mutex> modelLock_;
  QString modelLabel_;
  bool modelPending_ = false;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in CompareViewSpec.cpp.
struct ViewSpec;
ViewSpec compareViewSpec();

} // namespace maskscope
