// Teaching mode: a guided walk-through of masking, one step at a time, each step driving the real
// views on the demo data (collator, row, position, which view is in front), in large type.
#pragma once
#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace maskscope {

class Session;

struct TeachingStep {
  QString title;
  QString text;                          // HTML
  QString collator;                      // applied on entry
  QString view;                          // "tokens", "attention", "softmax", "loss", "compare"
  std::function<int(Session&)> position; // position to select, -1 = none
  bool softmaxExample = false;
};

class TeachingPanel : public QWidget {
  Q_OBJECT
public:
  // showView brings a view to the front ("softmax", ...); softmaxExample shows the 2.0/1.0/0.1 row.
  TeachingPanel(Session* session, std::function<void(const QString&, bool softmaxExample)> showView,
                QWidget* parent = nullptr);

  static std::vector<TeachingStep> steps();
  int stepIndex() const { return index_; }
  int stepCount() const { return int(steps_.size()); }
  void goToStep(int index);
  QString currentTitle() const;

Q_SIGNALS:
  void presenterToggled(bool on);

private:
  Session* session_;
  std::function<void(const QString&, bool)> showView_;
  std::vector<TeachingStep> steps_;
  int index_ = -1;
  QLabel* title_ = nullptr;
  QTextBrowser* text_ = nullptr;
  QLabel* counter_ = nullptr;
  QPushButton* prev_ = nullptr;
  QPushButton* next_ = nullptr;
};

} // namespace maskscope
