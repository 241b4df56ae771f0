// Teaching mode: a guided walk-through of masking, one step at a time, each step driving the real
// views on the demo data (collator, row, position, which view is in front), in large type. When a
// step brings a panel forward that shares this panel's dock tabs, this panel moves beside it.
#pragma once
#include "ui/teaching/TeachingSteps.h"

#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

class QDockWidget;
class QLabel;
class QPushButton;
class QTextBrowser;

namespace maskscope {

class Session;

class TeachingView : public QWidget {
  Q_OBJECT
public:
  // showView brings a view to the front ("softmax", ...); softmaxExample shows the 2.0/1.0/0.1 row.
  TeachingView(Session* session, std::function<void(const QString&, bool softmaxExample)> showView,
               QWidget* parent = nullptr);

  static std::vector<TeachingStep> steps();
  int stepIndex() const { return index_; }
  int stepCount() const { return int(steps_.size()); }
  void goToStep(int index);
  QString currentTitle() const;
  // The current step's text as shown (HTML), computed from the data on screen.
  QString currentText() const;
  QPushButton* nextButton() const { return next_; }
  QPushButton* presenterButton() const { return presenter_; }
  void setPresenterChecked(bool on); // follows View > Presenter mode without emitting

protected:
  // The title and step text are larger than the panel's font and follow it (presenter mode).
  void changeEvent(QEvent* event) override;

Q_SIGNALS:
  void presenterToggled(bool on);

private:
  void keepVisibleBeside(const QString& view);
  void applyFonts();
  Session* session_;
  std::function<void(const QString&, bool)> showView_;
  std::vector<TeachingStep> steps_;
  int index_ = -1;
  QString html_; // the current step's text as computed
  QLabel* title_ = nullptr;
  QTextBrowser* text_ = nullptr;
  QLabel* counter_ = nullptr;
  QPushButton* prev_ = nullptr;
  QPushButton* next_ = nullptr;
  QPushButton* presenter_ = nullptr;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in TeachingViewSpec.cpp.
struct ViewSpec;
ViewSpec teachingViewSpec();

} // namespace maskscope
