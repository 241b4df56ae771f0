// The teaching steps and their navigation.
#include "ui/teaching/TeachingView.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"

#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>
#include <algorithm>

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace maskscope {

std::vector<TeachingStep> TeachingView::steps() { return teachingSteps(); }

TeachingView::TeachingView(Session* session, std::function<void(const QString&, bool)> showView, QWidget* parent)
    : QWidget(parent), session_(session), showView_(std::move(showView)), steps_(steps()) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  text_ = new QTextBrowser(this);
  applyFonts();
  auto* nav = new QHBoxLayout;
  prev_ = new QPushButton(tr("\u2190 Back"), this);
  next_ = new QPushButton(tr("Next \u2192"), this);
  counter_ = new QLabel(this);
  auto* presenter = new QPushButton(tr("Presenter mode"), this);
  presenter->setObjectName(QStringLiteral("presenterButton"));
  presenter->setCheckable(true);
  presenter->setToolTip(tr("Large type for a projector (F11)"));
  presenter_ = presenter;
  nav->addWidget(prev_);
  nav->addWidget(counter_);
  nav->addWidget(next_);
  nav->addStretch();
  nav->addWidget(presenter);
  layout->addWidget(title_);
  layout->addWidget(text_, 1);
  layout->addLayout(nav);
  connect(prev_, &QPushButton::clicked, this, [this] { goToStep(index_ - 1); });
  connect(next_, &QPushButton::clicked, this, [this] { goToStep(index_ + 1); });
  connect(presenter, &QPushButton::toggled, this, &TeachingView::presenterToggled);
  title_->setText(tr("Teaching mode"));
  text_->setHtml(
      tr("<p>A guided walk through masking, driving the real views on the demo data. Press <b>Next</b>.</p>"));
  counter_->setText(tr("%1 steps").arg(steps_.size()));
}

void TeachingView::applyFonts() {
  QFont big = font();
  big.setPointSizeF(big.pointSizeF() * 1.6);
  big.setBold(true);
  title_->setFont(big);
  QFont body = font();
  body.setPointSizeF(body.pointSizeF() * 1.3);
  text_->setFont(body);
}

void TeachingView::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange && title_) applyFonts();
}

void TeachingView::setPresenterChecked(bool on) {
  QSignalBlocker block(presenter_);
  presenter_->setChecked(on);
}

QString TeachingView::currentTitle() const { return title_->text(); }

QString TeachingView::currentText() const { return html_; }

void TeachingView::goToStep(int index) {
  if (index < 0 || index >= int(steps_.size())) return;
  index_ = index;
  const TeachingStep& s = steps_[size_t(index)];
  title_->setText(s.title);
  counter_->setText(tr("%1 / %2").arg(index + 1).arg(steps_.size()));
  prev_->setEnabled(index > 0);
  next_->setEnabled(index + 1 < int(steps_.size()));
  if (session_->datasetSpec() != QLatin1String("builtin:demo")) session_->openDataset(QStringLiteral("builtin:demo"));
  session_->setCollator(s.collator);
  if (s.position) {
    const int p = s.position(*session_);
    if (p >= 0) session_->selectPosition(p);
  }
  html_ = s.text ? s.text(*session_) : QString(); // after the collator and position: the numbers on screen
  text_->setHtml(html_);
  if (showView_) showView_(s.view, s.softmaxExample);
  keepVisibleBeside(s.view);
}

// A step that raises a panel tabbed with this one would hide the step text and the Next button:
// move this panel out of the tab group, beside the panel it opened.
void TeachingView::keepVisibleBeside(const QString& view) {
  QDockWidget* own = nullptr;
  for (QWidget* w = parentWidget(); w && !own; w = w->parentWidget()) own = qobject_cast<QDockWidget*>(w);
  auto* window = own ? qobject_cast<QMainWindow*>(own->parentWidget()) : nullptr;
  const ViewSpec* spec = findView(view);
  if (!window || !spec || spec->dockName.isEmpty()) return;
  auto* target = window->findChild<QDockWidget*>(spec->dockName);
  if (!target || target == own) return;
  const bool moved = window->tabifiedDockWidgets(own).contains(target);
  if (moved) { // out of the tab group, beside it in the same (bottom) area
    const Qt::DockWidgetArea area = window->dockWidgetArea(target);
    window->removeDockWidget(own);
    window->addDockWidget(area, own, Qt::Horizontal);
    own->show();
  }
  target->show();
  target->raise();
  // Sizes are set after the window's own queued first-show layout, which would undo them.
  QMetaObject::invokeMethod(
      this,
      [window, own, target, moved] {
        // The step text and the Back / Next buttons get about 40 % of the width, the panel the rest.
        const int w = window->width();
        if (moved) window->resizeDocks({target, own}, {w * 6 / 10, w * 4 / 10}, Qt::Horizontal);
      },
      Qt::QueuedConnection);
}

} // namespace maskscope
