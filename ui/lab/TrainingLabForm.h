// The Training lab's settings: the experiment (the five train-ab presets, each with what to look
// for, or two collator specs picked by hand), steps, seed and held-out interval, and Start/Cancel.
// It turns them into the same TrainArgs the command line builds, so both train the same way.
#pragma once
#include "core/train/TrainPlan.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace maskscope {

class TrainingLabForm : public QWidget {
  Q_OBJECT
public:
  static constexpr const char* kCustom = "custom"; // the picker's entry for two collators by hand

  explicit TrainingLabForm(QWidget* parent = nullptr);

  // Throws maskscope::Error when a hand-picked collator spec is empty.
  TrainArgs args() const;
  bool selectExperiment(const QString& name); // a preset name or kCustom; false when unknown
  QString experiment() const;
  QString lookFor() const;
  void setCollators(const QString& a, const QString& b); // selects kCustom
  void setSteps(int steps);
  void setEvalEvery(int every);
  void setRunning(bool running);

  QPushButton* startButton() const { return start_; }
  QPushButton* cancelButton() const { return cancel_; }

Q_SIGNALS:
  void startRequested();
  void cancelRequested();

private:
  void experimentChanged();
  QComboBox* experiment_ = nullptr;
  QLabel* lookFor_ = nullptr;
  QComboBox* collator_[2] = {};
  QSpinBox* steps_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QSpinBox* evalEvery_ = nullptr;
  QPushButton* start_ = nullptr;
  QPushButton* cancel_ = nullptr;
};

} // namespace maskscope
