// Compare mode: the selected row under two collators side by side (token strips, attention grids,
// graded counts and losses: the loaded model's, in a worker, else example per-role losses). The rows
// are aligned at their first real token and each grid's differences are counted apart (ids, labels,
// attention bits, position ids, attention cells), outlined and tinted exactly where counted. The
// O(T^2) cell count runs in a worker for rows longer than asyncCellThreshold() (stale counts dropped).
#pragma once
#include "core/data/Batch.h"
#include "core/forward/ForwardEngine.h"
#include "core/mask/RowComparison.h"

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
  // The comparison the summary states (core/mask/RowComparison.h): rows aligned at their first real
  // token, each grid's differences counted apart.
  const RowComparison& comparison() const { return comparison_; }
  int differingPositions() const; // aligned positions that differ in any grid
  // Aligned attention cells (key <= query) whose state differs; -1 while a worker counts them.
  int64_t differingCells() const { return differingCells_; }
  int64_t comparedCells() const { return cells_.compared; }
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
  // The collator spec side 0 (A) or 1 (B) compares: its list's entry, the toolbar's collator for the
  // lists' first entry ("toolbar: ...", where A starts).
  QString sideSpec(int side) const { return specOf(side == 0 ? boxA_ : boxB_); }
  QComboBox* sideBox(int side) const { return side == 0 ? boxA_ : boxB_; }

protected:
  void showEvent(QShowEvent* event) override;

private:
  void recompute();
  void recomputeIfVisible();
  void nameSessionCollator();
  QString specOf(const QComboBox* box) const;
  void selectSpec(QComboBox* box, const QString& spec);
  void chooseFile(QComboBox* box);
  QString sideSummary(const Batch& b, int row, const std::vector<double>* modelNll) const;
  void startModelLosses();

  Session* session_;
  QComboBox* boxA_ = nullptr;
  QComboBox* boxB_ = nullptr;
  int lastA_ = 0, lastB_ = 0; // each list's entry before the file entry was picked
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
  RowComparison comparison_;
  CellComparison cells_;
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
