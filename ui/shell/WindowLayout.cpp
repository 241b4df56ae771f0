// Dock creation, arrangement and sizing for the main window, read from the view registry; the
// height arithmetic keeps the centre (strip and grid) above its least height at 1024 x 768.
#include "ui/shell/WindowLayout.h"
#include "ui/shell/ViewRegistry.h"

#include <QChildEvent>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QLayout>
#include <QMainWindow>
#include <QScreen>
#include <QScrollArea>
#include <QTabBar>
#include <QTimer>
#include <algorithm>

namespace maskscope {

namespace {

// Holds a docked view in a scroll area: the dock may be shorter than the view needs (a 1024 x 768
// projector), and then the view scrolls whole instead of squeezing its controls over each other or
// its charts to nothing. Gives the dock a modest preferred size, so the strip and grid get the room.
class PanelFrame : public QScrollArea {
public:
  PanelFrame(QWidget* panel, QSize hint) : hint_(hint) {
    setWidget(panel);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
  }
  QSize sizeHint() const override { return hint_; }
  QSize minimumSizeHint() const override { return {120, shrinkTo_ ? shrinkTo_->minimumSizeHint().height() : 90}; }
  // The height that shows the whole view without scrolling.
  int wholeHeight() const { return widget()->minimumSizeHint().height(); }

  // Presenter mode: the bottom docks share one tab group, whose least height is its tallest
  // least; each may shrink to the folded lint view (nullptr: back to 90 px).
  void setShrinkTo(const QWidget* w) {
    shrinkTo_ = w;
    updateGeometry();
  }

protected:
  // A view taken out to be grabbed alone (`maskscope snapshot`, an export) keeps the size it is
  // given: the scroll area would resize it back to its viewport's.
  // The view's least size changed (presenter type, lint folded): the dock asks this frame again (a
  // scroll area does not pass its view's layout requests on; the dock kept the old least height).
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == widget() && widget()->parentWidget() != viewport()) return false;
    if (watched == widget() && event->type() == QEvent::LayoutRequest) updateGeometry();
    return QScrollArea::eventFilter(watched, event);
  }

private:
  QSize hint_;
  const QWidget* shrinkTo_ = nullptr;
};

} // namespace

WindowLayout::WindowLayout(QMainWindow* window) : QObject(window), window_(window) {
  window_->installEventFilter(this);
}

bool WindowLayout::eventFilter(QObject* watched, QEvent* event) {
  if (watched == window_ && event->type() == QEvent::ChildAdded &&
      qobject_cast<QTabBar*>(static_cast<QChildEvent*>(event)->child()))
    QTimer::singleShot(0, this, [this] { configureTabBars(); }); // the bar is set up after it is added
  // The centre remembered when it was watched: the window may be half destroyed by the time its
  // children's events arrive here (closing in ~QWidget), and must not be asked for it then.
  if (event->type() == QEvent::LayoutRequest && watched == centre_ && !keepPending_) {
    keepPending_ = true;
    QTimer::singleShot(0, this, [this] { keepCentreLeast(); });
  }
  return QObject::eventFilter(watched, event);
}

void WindowLayout::stopWatching() {
  window_->removeEventFilter(this);
  if (centre_) centre_->removeEventFilter(this);
  centre_ = nullptr;
}

// A tab says its whole name (never "S…"); a bar too narrow for its tabs scrolls.
void WindowLayout::configureTabBars() {
  for (QTabBar* bar : window_->findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) {
    bar->setElideMode(Qt::ElideNone);
    bar->setUsesScrollButtons(true);
    bar->setFont(tabFont_);
  }
}

void WindowLayout::setTabBarFont(const QFont& font) {
  tabFont_ = font;
  configureTabBars();
}

void WindowLayout::createDocks(const QHash<QString, QWidget*>& views) {
  for (const ViewSpec& v : viewRegistry()) {
    if (v.area == Qt::NoDockWidgetArea) continue;
    auto* dock = new QDockWidget(v.title, window_);
    dock->setObjectName(v.dockName);
    const bool side = v.area == Qt::LeftDockWidgetArea || v.area == Qt::RightDockWidgetArea;
    dock->setWidget(new PanelFrame(views.value(v.name), side ? QSize(280, 400) : QSize(800, 190)));
    docks_ << dock;
    // Folded bottom docks are sized by the tab in front (the folded lint view small, another view
    // at its usual height): a tab brought forward there (it becomes visible) gets its height.
    // Not while another bottom dock stands beside the tab group (teaching's steps): its height is
    // that one's too, and its buttons must not move when a step brings a tab forward.
    // The dock standing beside grows itself to show whole (never shrinks: the buttons stay put).
    connect(dock, &QDockWidget::visibilityChanged, this, [this, dock](bool visible) {
      if (!visible || !(folded() || quietView_) || !dockSizesApplied_ ||
          window_->dockWidgetArea(dock) != Qt::BottomDockWidgetArea)
        return;
      if (!hasDockBeside(dock))
        QTimer::singleShot(0, this, [this, dock] { applyDefaultDockSizes(dock); });
      else if (folded() && window_->tabifiedDockWidgets(dock).isEmpty())
        QTimer::singleShot(0, this, [this, dock] { growToShow(dock, true); });
    });
  }
}

bool WindowLayout::hasDockBeside(QDockWidget* bottom) const {
  const QList<QDockWidget*> group = window_->tabifiedDockWidgets(bottom);
  for (QDockWidget* d : docks_)
    if (d != bottom && d->isVisible() && window_->dockWidgetArea(d) == Qt::BottomDockWidgetArea && !group.contains(d))
      return true;
  return false;
}

QDockWidget* WindowLayout::dock(const QString& name) const {
  const ViewSpec* spec = findView(name);
  if (!spec || spec->dockName.isEmpty()) return nullptr;
  for (QDockWidget* d : docks_)
    if (d->objectName() == spec->dockName) return d;
  return nullptr;
}

// The default arrangement: each dock docked in its area, shown, the docks of one area tabbed in
// table order with the first raised. The window's constructor and View > Reset layout both use it.
void WindowLayout::arrangeDocks() {
  QHash<int, QDockWidget*> last; // per area, the dock the next one tabs onto
  QList<QDockWidget*> first;
  for (const ViewSpec& v : viewRegistry()) {
    QDockWidget* d = dock(v.name);
    if (!d) continue;
    d->setFloating(false); // back in the layout first: a removed dock cannot be docked by setFloating
    if (docksArranged_) window_->removeDockWidget(d); // a dock added twice would be laid out twice
    window_->addDockWidget(v.area, d);
    d->show();
    if (QDockWidget* previous = last.value(int(v.area)))
      window_->tabifyDockWidget(previous, d);
    else
      first << d;
    last.insert(int(v.area), d);
  }
  for (QDockWidget* d : first) d->raise();
  docksArranged_ = true;
}

void WindowLayout::resetLayout() {
  dockSizesApplied_ = false;
  arrangeDocks();
  QTimer::singleShot(0, this, [this] { applyDefaultDockSizes(); });
}

int WindowLayout::roomFor(QDockWidget* bottom) const {
  QWidget* centre = window_->centralWidget();
  return centre->height() + bottom->height() - centreLeastHeight();
}

// The centre's least height with its wrapped labels (the header) as tall as their text at their width:
// a label's least size assumes a wider line, and a header wrapped to a third line (the centre narrowed
// by the teaching steps beside it) would otherwise be taken from the grid below its least.
int WindowLayout::centreLeastHeight() const {
  QWidget* centre = window_->centralWidget();
  int least = centre->minimumSizeHint().height();
  for (QLabel* label : centre->findChildren<QLabel*>(Qt::FindDirectChildrenOnly))
    if (label->isVisible() && label->wordWrap() && label->width() > 0)
      least += std::max(0, label->heightForWidth(label->width()) - label->minimumSizeHint().height());
  return least;
}

// About 28 % of the window, but never taking the centre below its least height: the layout would
// then cut the grid's bottom off under the docks (a 1024 x 768 window, presenter mode).
int WindowLayout::bottomDockHeight(QDockWidget* bottom) const {
  const int room = roomFor(bottom);
  const int least = bottom->minimumSizeHint().height();
  // Folded (presenter mode) with the lint view in front, or a quiet view in front: it shows its summary
  // line only, and the room goes to the grid (a 1024 x 768 projector leaves little height).
  const bool foldedFront = showsLeast(bottom);
  int wanted = foldedFront ? least : std::max(180, window_->height() * 28 / 100);
  // Another tab brought forward there: as tall as shows its whole view, as far as the centre allows.
  auto* frame = dynamic_cast<PanelFrame*>(bottom->widget());
  if (foldedTo_ && !foldedFront && frame)
    wanted = std::max(wanted, frame->wholeHeight() + bottom->height() - frame->height());
  return std::clamp(wanted, least, std::max(least, room));
}

bool WindowLayout::showsLeast(QDockWidget* bottom) const {
  auto* frame = dynamic_cast<PanelFrame*>(bottom->widget());
  return (foldedTo_ && bottom == dock(QStringLiteral("lint"))) ||
         (quietView_ && frame && frame->widget() == quietView_);
}

void WindowLayout::setQuietView(QWidget* view) {
  if (view == quietView_) return;
  QWidget* const changed = view ? view : quietView_; // the view that goes quiet or back to its list
  quietView_ = view;
  QDockWidget* own = nullptr;
  for (QDockWidget* d : docks_) {
    auto* frame = dynamic_cast<PanelFrame*>(d->widget());
    if (!frame) continue;
    // The tab group may shrink to it (every dock: the window may not have placed them yet; a side
    // dock's least height matters to no one).
    if (!foldedTo_) frame->setShrinkTo(view);
    if (frame->widget() == changed) own = d;
  }
  // Only while that view is in front: another tab keeps the height it has.
  if (own && own->isVisible() && dockSizesApplied_ && !hasDockBeside(own))
    QTimer::singleShot(0, this, [this, own] { applyDefaultDockSizes(own); });
}

// Presenter mode, nothing beside the bottom tab group (the teaching steps right of the centre): the
// centre's least height grew (a header line, a legend entry back) under a bottom panel sized before:
// that panel gives the centre back what it needs, so the grid is never squeezed below its least.
void WindowLayout::keepCentreLeast() {
  keepPending_ = false;
  if (!foldedTo_ || !dockSizesApplied_) return;
  if (window_->layout()) window_->layout()->activate();
  for (QDockWidget* d : docks_) {
    if (!d->isVisible() || d->isFloating() || window_->dockWidgetArea(d) != Qt::BottomDockWidgetArea ||
        hasDockBeside(d))
      continue;
    const int room = std::max(d->minimumSizeHint().height(), roomFor(d));
    if (d->height() > room) resizeBottom(d, room);
    return;
  }
}

void WindowLayout::applyDefaultDockSizes(QDockWidget* front) {
  if (QWidget* centre = window_->centralWidget(); centre && centre != centre_) {
    centre_ = centre;
    centre->installEventFilter(this);
  }
  QDockWidget* bottom = front; // the tab in front of the bottom area, when known
  QDockWidget* side = nullptr;
  for (QDockWidget* d : docks_) {
    const Qt::DockWidgetArea a = window_->dockWidgetArea(d);
    if (!bottom && a == Qt::BottomDockWidgetArea && d->isVisible()) bottom = d;
    // A side view (the dataset browser) gets a column; a bottom view placed at the side keeps the
    // width it was given (presenter mode's teaching steps right of the centre).
    const bool sideView =
        docksArranged_ && std::any_of(viewRegistry().begin(), viewRegistry().end(), [&](const ViewSpec& v) {
          return v.dockName == d->objectName() && v.area != Qt::BottomDockWidgetArea;
        });
    if (!side && sideView && (a == Qt::LeftDockWidgetArea || a == Qt::RightDockWidgetArea) && d->isVisible()) side = d;
  }
  // The side first: its width decides the centre's, which the bottom's height is measured against.
  if (side) window_->resizeDocks({side}, {280}, Qt::Horizontal);
  if (bottom) {
    if (window_->layout()) window_->layout()->activate();
    resizeBottom(bottom, bottomDockHeight(bottom));
  }
  configureTabBars();
  dockSizesApplied_ = true;
}

void WindowLayout::resizeBottom(QDockWidget* bottom, int target) {
  window_->resizeDocks({bottom}, {target}, Qt::Vertical);
  // The size given covers the area's tab bar when the docks are tabbed already (after a reset),
  // not on the first run: correct by what the dock actually got, so both end at the same height.
  if (window_->layout()) window_->layout()->activate();
  if (const int error = target - bottom->height(); error != 0)
    window_->resizeDocks({bottom}, {target + error}, Qt::Vertical);
}

// A dock beside the tab group (teaching's steps) leaves the centre the room it may grow by (the
// legend's folded rows): else the layout would take it from this dock, and move its buttons.
void WindowLayout::growToShow(QDockWidget* dock, bool mayShrink) {
  auto* frame = dynamic_cast<PanelFrame*>(dock->widget());
  if (!frame || window_->dockWidgetArea(dock) != Qt::BottomDockWidgetArea || !dock->isVisible()) return;
  if (window_->layout()) window_->layout()->activate();
  const int chrome = dock->height() - frame->height(); // the dock's title bar
  const int wanted = frame->wholeHeight() + chrome;
  const int reserve = hasDockBeside(dock) && centreGrowth_ ? centreGrowth_() : 0;
  const int room = std::max(dock->minimumSizeHint().height(), roomFor(dock) - reserve);
  const int target = std::min(wanted, mayShrink ? room : std::max(dock->height(), room));
  if (target > dock->height() || (mayShrink && target != dock->height())) resizeBottom(dock, target);
}

void WindowLayout::foldBottomDocks(QWidget* shrinkTo) {
  foldedTo_ = shrinkTo;
  const bool on = shrinkTo != nullptr;
  for (QDockWidget* d : docks_) {
    if (window_->dockWidgetArea(d) != Qt::BottomDockWidgetArea) continue;
    if (auto* frame = dynamic_cast<PanelFrame*>(d->widget())) frame->setShrinkTo(shrinkTo ? shrinkTo : quietView_);
    if (on && !d->titleBarWidget()) {
      d->setTitleBarWidget(new QWidget(d));
    } else if (!on && d->titleBarWidget()) {
      QWidget* empty = d->titleBarWidget();
      d->setTitleBarWidget(nullptr); // the default title bar again
      delete empty;
    }
  }
}

QRect WindowLayout::screenRoom() const {
  const QScreen* s = window_->screen() ? window_->screen() : QGuiApplication::primaryScreen();
  if (!s) return {};
  // The frame (title bar, borders) is outside geometry(); it must fit on the screen too.
  const QRect frame = window_->frameGeometry(), inner = window_->geometry();
  const QMargins margins(inner.left() - frame.left(), inner.top() - frame.top(), frame.right() - inner.right(),
                         frame.bottom() - inner.bottom());
  return s->availableGeometry().marginsRemoved(margins);
}

void WindowLayout::centreOnScreen() {
  const QScreen* s = window_->screen() ? window_->screen() : QGuiApplication::primaryScreen();
  if (!s) return;
  // The frame (title bar, borders) is centred: pos() places it.
  window_->move(window_->pos() + (s->availableGeometry().center() - window_->frameGeometry().center()));
}

void WindowLayout::fitToScreen(bool fill) {
  const QRect room = screenRoom();
  if (room.isEmpty()) return;
  if (fill) {
    window_->setGeometry(room);
    return;
  }
  QRect g(window_->geometry().topLeft(), window_->size().boundedTo(room.size())); // not pos(): the frame's
  g.moveLeft(std::clamp(g.left(), room.left(), room.right() - g.width() + 1));
  g.moveTop(std::clamp(g.top(), room.top(), room.bottom() - g.height() + 1));
  window_->setGeometry(g);
}

} // namespace maskscope
