// Where the views sit in the main window: one dock per docked view of the registry, their default
// arrangement and sizes (View > Reset layout), presenter mode's folded bottom docks, and keeping the
// window (frame included) on its screen. Owns no views; the window composes them.
#pragma once
#include <QFont>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QRect>
#include <QSize>
#include <functional>

class QDockWidget;
class QMainWindow;
class QWidget;

namespace maskscope {

class WindowLayout : public QObject {
  Q_OBJECT
public:
  explicit WindowLayout(QMainWindow* window);
  // The window is being destroyed: no more events from it or its centre.
  void stopWatching();

  // A dock for each docked view (views by registry name); centre views get none.
  void createDocks(const QHash<QString, QWidget*>& views);
  QDockWidget* dock(const QString& name) const; // nullptr for centre views and unknown names
  const QList<QDockWidget*>& docks() const { return docks_; }
  // Docks every view where it starts: areas, tabs and sizes of a first run (sizes from a queued call).
  void arrangeDocks();
  void resetLayout();
  // First-show sizes: the centre gets most of the height, the bottom docks a strip (front: the
  // bottom tab just brought forward), the side dock a column.
  void applyDefaultDockSizes(QDockWidget* front = nullptr);
  bool dockSizesApplied() const { return dockSizesApplied_; }
  // Presenter mode: the bottom docks may shrink to `shrinkTo`'s least height (the folded lint view)
  // and lose their title bars (the tabs name them); nullptr restores them. A bottom tab brought
  // forward meanwhile gets its usual height.
  void foldBottomDocks(QWidget* shrinkTo);
  bool folded() const { return foldedTo_ != nullptr; }
  // A bottom view with nothing to list (the lint view without findings, one line; nullptr: none): in
  // front, its tab group shrinks to that view's least height and the centre gets the room; another
  // tab brought forward gets its usual height back.
  void setQuietView(QWidget* view);
  // A bottom dock brought forward grows, when the room allows (the centre keeps its least height),
  // to show its whole view without scrolling; it never shrinks here (the user's height stays).
  // mayShrink: sized to that, smaller too (a dock just placed beside the tab group).
  void growToShow(QDockWidget* dock, bool mayShrink = false);
  // How much the centre's least height may grow without a dock being moved (presenter mode's folded
  // legend rows); a dock beside the bottom tab group leaves it that room.
  void setCentreGrowth(std::function<int()> growth) { centreGrowth_ = std::move(growth); }
  // Shrinks (fill: grows) the window, frame included, to its screen's available geometry.
  void fitToScreen(bool fill);
  // The docks' tab bars' type (presenter mode keeps them at the normal type: they are the presenter's
  // controls, and every bottom tab then shows at 1024 px without the bar scrolling); QFont(): the window's.
  void setTabBarFont(const QFont& font);
  // Centres the window, frame included, on its screen's available geometry (the first window).
  void centreOnScreen();

protected:
  // Tab bars the window makes for tabbed docks say each dock's whole name (scroll, never elide).
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  QRect screenRoom() const;
  int bottomDockHeight(QDockWidget* bottom) const;
  int roomFor(QDockWidget* bottom) const; // the most the bottom dock may take from the centre
  int centreLeastHeight() const;
  void keepCentreLeast();
  bool hasDockBeside(QDockWidget* bottom) const; // a visible bottom dock outside its tab group
  bool showsLeast(QDockWidget* bottom) const;    // in front, it takes its least height
  void resizeBottom(QDockWidget* bottom, int target);
  void configureTabBars();

  QMainWindow* window_;
  QPointer<QWidget> centre_; // the central widget this layout watches for layout requests
  std::function<int()> centreGrowth_;
  QList<QDockWidget*> docks_; // in registry order
  bool docksArranged_ = false;
  bool dockSizesApplied_ = false;
  QWidget* foldedTo_ = nullptr;
  QWidget* quietView_ = nullptr;
  QFont tabFont_;
  bool keepPending_ = false; // keepCentreLeast queued
};

} // namespace maskscope
