// Teaching mode: a guided walk-through of masking, one step at a time, each step driving the real
// views on the demo data (collator, row, position, which view is in front), in large type. The first
// step moves this panel beside the bottom tab group (presenter mode: right of the centre), so Back /
// Next stay put; Page Down / Page Up (and the arrow keys in presenter mode) step.
#pragma once
#include "ui/teaching/TeachingSteps.h"

#include <QMargins>
#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

class QDockWidget;
class QLabel;
class QPushButton;
class QShortcut;
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
  QPushButton* previousButton() const { return prev_; }
  QWidget* textView() const; // the step text
  QPushButton* presenterButton() const { return presenter_; }
  void setPresenterChecked(bool on); // follows View > Presenter mode without emitting
  // Runs lint on the batch on screen, now (the window's lint panel). A step that shows a bug
  // (stepShowsBug) calls it, so its window and snapshot show that bug's findings, never the empty
  // list of a batch lint has not judged yet.
  void setLintNow(std::function<void()> lintNow) { lintNow_ = std::move(lintNow); }

protected:
  // The title and step text are larger than the panel's font and follow it (presenter mode).
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

Q_SIGNALS:
  void presenterToggled(bool on);

private:
  bool measuresLessons() const; // the current step quotes Session::rowLessons
  void keepVisibleBeside(const QString& view);
  QDockWidget* ownDock() const;
  void placeDock(); // out of the tab group: beside it, or (presenter mode) right of the centre
  void buildShortcuts();
  void applyFonts();
  void setTitle(const QString& title);
  void fitTitle();
  Session* session_;
  std::function<void(const QString&, bool)> showView_;
  std::function<void()> lintNow_;
  std::vector<TeachingStep> steps_;
  int index_ = -1;
  QString html_;              // the current step's text as computed
  QString titleText_;         // the step's title, whole (the label may show it cut in presenter mode)
  QMargins normalMargins_;    // the layout's, outside presenter mode
  bool besideCentre_ = false; // placed right of the centre (presenter mode), not beside the tab group
  QLabel* title_ = nullptr;
  QTextBrowser* text_ = nullptr;
  QLabel* counter_ = nullptr;
  QPushButton* prev_ = nullptr;
  QPushButton* next_ = nullptr;
  QPushButton* presenter_ = nullptr;
  QShortcut* arrowNext_ = nullptr; // the arrow keys step in presenter mode only
  QShortcut* arrowPrevious_ = nullptr;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in TeachingViewSpec.cpp.
struct ViewSpec;
ViewSpec teachingViewSpec();

} // namespace maskscope
