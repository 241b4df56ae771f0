// The teaching steps and their navigation.
#include "ui/teaching/TeachingView.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/widgets/FlowLayout.h"

#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>

namespace maskscope {

std::vector<TeachingStep> TeachingView::steps() { return teachingSteps(); }

TeachingView::TeachingView(Session* session, std::function<void(const QString&, bool)> showView, QWidget* parent)
    : QWidget(parent), session_(session), showView_(std::move(showView)), steps_(steps()) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  text_ = new QTextBrowser(this);
  applyFonts();
  // Back / Next and the counter, then the presenter switch, which wraps under them in a narrow panel
  // (presenter mode right of the centre on a 1024 px projector: the centre keeps the width).
  auto* nav = new FlowLayout(6, 2);
  prev_ = new QPushButton(tr("\u2190 Back"), this);
  next_ = new QPushButton(tr("Next \u2192"), this);
  counter_ = new QLabel(this);
  auto* presenter = new QPushButton(tr("Presenter mode"), this);
  presenter->setObjectName(QStringLiteral("presenterButton"));
  presenter->setCheckable(true);
  presenter->setToolTip(tr("Large type for a projector (F11)"));
  presenter_ = presenter;
  nav->addWidget(prev_);
  nav->addWidget(next_);
  nav->addWidget(counter_); // after Next: "10 / 12" is wider than "3 / 12", and Next must not move
  nav->addWidget(presenter);
  // Back / Next first: a step's longer title or text grows the panel below them, so on a short
  // dock (1024 x 768) the buttons never move or scroll away while a teacher clicks through.
  layout->addLayout(nav);
  layout->addWidget(title_);
  layout->addWidget(text_, 1);
  connect(prev_, &QPushButton::clicked, this, [this] { goToStep(index_ - 1); });
  connect(next_, &QPushButton::clicked, this, [this] { goToStep(index_ + 1); });
  connect(presenter, &QPushButton::toggled, this, &TeachingView::presenterToggled);
  // A step quoting measured lessons: asked for again when the row changes, redrawn when they arrive.
  connect(session_, &Session::batchChanged, this, [this] {
    if (measuresLessons()) session_->requestRowLessons();
  });
  connect(session_, &Session::rowLessonsChanged, this, [this] {
    if (!measuresLessons()) return;
    html_ = steps_[size_t(index_)].text(*session_);
    text_->setHtml(html_);
  });
  // The Training lab finished a run: the step on teacher forcing quotes its exposure bias.
  connect(session_, &Session::labExposureChanged, this, [this] {
    if (index_ < 0 || !steps_[size_t(index_)].text) return;
    html_ = steps_[size_t(index_)].text(*session_);
    text_->setHtml(html_);
  });
  setTitle(tr("Teaching mode"));
  text_->setHtml(
      tr("<p>A guided walk through masking, driving the real views on the demo data. Press <b>Next</b>.</p>"));
  counter_->setText(tr("%1 steps").arg(steps_.size()));
  buildShortcuts();
}

// The title 1.3x the type (bold), the text 1.15x: presenter mode's type is already large, and a
// 1024 x 768 projector then still shows the step's title and three lines of text.
void TeachingView::applyFonts() {
  QFont big = font();
  big.setPointSizeF(big.pointSizeF() * 1.3);
  big.setBold(true);
  title_->setFont(big);
  QFont body = font();
  body.setPointSizeF(body.pointSizeF() * 1.15);
  text_->setFont(body);
  // Three lines of the step text at least, whatever the type (presenter mode): the panel scrolls, or
  // its dock grows, rather than the text shrinking to a line.
  // The counter as wide as its widest text ("10 / 11"): the panel's least width stays put.
  if (counter_)
    counter_->setMinimumWidth(fontMetrics().horizontalAdvance(tr("%1 / %2").arg(steps_.size()).arg(steps_.size())));
  const QFontMetrics m(body);
  text_->setMinimumHeight(3 * m.lineSpacing() + 2 * text_->frameWidth() + 2 * int(text_->document()->documentMargin()) +
                          2);
}

void TeachingView::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange && title_) {
    applyFonts();
    fitTitle();
  }
}

void TeachingView::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  fitTitle();
}

void TeachingView::setTitle(const QString& title) {
  titleText_ = title;
  title_->setToolTip(title);
  fitTitle();
}

// Presenter mode in the bottom area: the title is one line (a second one would take a line of the
// step text on a 1024 x 768 projector): a title longer than the panel is cut with "…" (its tooltip
// has it whole). Otherwise it wraps (beside the centre the panel has the height).
void TeachingView::fitTitle() {
  if (!title_ || !layout()) return;
  const bool oneLine = presenter_ && presenter_->isChecked() && !besideCentre_;
  title_->setWordWrap(!oneLine);
  title_->setSizePolicy(oneLine ? QSizePolicy::Ignored : QSizePolicy::Preferred, QSizePolicy::Preferred);
  const QMargins m = layout()->contentsMargins();
  const int room = contentsRect().width() - m.left() - m.right();
  title_->setText(oneLine && room > 0 ? title_->fontMetrics().elidedText(titleText_, Qt::ElideRight, room)
                                      : titleText_);
}

void TeachingView::setPresenterChecked(bool on) {
  QSignalBlocker block(presenter_);
  presenter_->setChecked(on);
  // Presenter mode: narrow margins and spacing, on a 1024 x 768 projector each pixel given to this
  // panel's frame is taken from the grid (the step text keeps its three lines).
  if (normalMargins_.isNull()) normalMargins_ = layout()->contentsMargins();
  layout()->setContentsMargins(on ? QMargins(4, 2, 4, 2) : normalMargins_);
  layout()->setSpacing(on ? 2 : -1);
  text_->document()->setDocumentMargin(on ? 2 : 4);
  applyFonts(); // the text's least height follows its margin
  // Already out of the tab group: to where the new type wants it (presenter mode: right of the centre).
  if (QDockWidget* own = ownDock(); own && on != besideCentre_) {
    auto* window = qobject_cast<QMainWindow*>(own->parentWidget());
    const bool placed = window && !own->isHidden() && window->tabifiedDockWidgets(own).isEmpty() &&
                        window->dockWidgetArea(own) != Qt::NoDockWidgetArea;
    if (placed) placeDock();
  }
  fitTitle();
  arrowNext_->setEnabled(on);
  arrowPrevious_->setEnabled(on);
}

QWidget* TeachingView::textView() const { return text_; }

QString TeachingView::currentTitle() const { return titleText_; }

QString TeachingView::currentText() const { return html_; }

bool TeachingView::measuresLessons() const {
  return index_ >= 0 && index_ < int(steps_.size()) && steps_[size_t(index_)].measuresLessons;
}

void TeachingView::goToStep(int index) {
  if (index < 0 || index >= int(steps_.size())) return;
  index_ = index;
  const TeachingStep& s = steps_[size_t(index)];
  setTitle(s.title);
  counter_->setText(tr("%1 / %2").arg(index + 1).arg(steps_.size()));
  prev_->setEnabled(index > 0);
  next_->setEnabled(index + 1 < int(steps_.size()));
  if (session_->datasetSpec() != QLatin1String("builtin:demo")) session_->openDataset(QStringLiteral("builtin:demo"));
  session_->setCollator(s.collator);
  session_->setMaskedLmAside(s.maskedLmAside); // after the collator: computed on the batch shown
  if (s.position) {
    const int p = s.position(*session_);
    if (p >= 0) session_->selectPosition(p);
  }
  if (s.measuresLessons) session_->requestRowLessons();
  html_ = s.text ? s.text(*session_) : QString(); // after the collator and position: the numbers on screen
  text_->setHtml(html_);
  if (showView_) showView_(s.view, s.softmaxExample);
  if (lintNow_ && stepShowsBug(s)) lintNow_(); // the bug's findings, not a list lint has not made yet
  keepVisibleBeside(s.view);
}

// The first step takes this panel out of the bottom tab group: later steps raise other panels there
// and the step text and the Back / Next buttons stay where they are (a teacher clicks Next without
// looking for it). Then the step's own panel comes to the front.
void TeachingView::keepVisibleBeside(const QString& view) {
  QDockWidget* own = ownDock();
  auto* window = own ? qobject_cast<QMainWindow*>(own->parentWidget()) : nullptr;
  if (!window) return;
  if (const QList<QDockWidget*> group = window->tabifiedDockWidgets(own); !group.isEmpty()) {
    placeDock();
    // The tab group's first panel in front (the lint findings, one line in presenter mode), not the
    // one tabbed last (the Training lab, which would take the grid's height from step 1 on).
    QDockWidget* first = nullptr;
    for (const ViewSpec& v : viewRegistry())
      for (QDockWidget* d : group)
        if (!first && d->objectName() == v.dockName) first = d;
    if (first) first->raise();
  }
  const ViewSpec* spec = findView(view);
  if (!spec || spec->dockName.isEmpty()) return;
  if (auto* target = window->findChild<QDockWidget*>(spec->dockName); target && target != own) {
    target->show();
    target->raise();
  }
}

QDockWidget* TeachingView::ownDock() const {
  QDockWidget* own = nullptr;
  for (QWidget* w = parentWidget(); w && !own; w = w->parentWidget()) own = qobject_cast<QDockWidget*>(w);
  return own;
}

// Out of the tab group. Normal type: beside it in the bottom area, about 40 % of the width. Presenter
// mode: right of the centre, above the bottom area, which keeps the window's whole width: every tab
// of its bar whole and the Training lab's form and charts at full width on a 1024 px projector, and
// the step text many lines high. The centre (its legend wraps) keeps the rest of the width.
void TeachingView::placeDock() {
  QDockWidget* own = ownDock();
  auto* window = own ? qobject_cast<QMainWindow*>(own->parentWidget()) : nullptr;
  if (!window || own->isFloating()) return;
  const bool presenter = presenter_->isChecked();
  const Qt::DockWidgetArea area = presenter ? Qt::RightDockWidgetArea : Qt::BottomDockWidgetArea;
  QDockWidget* beside = nullptr; // a bottom panel the steps stand beside (normal type)
  for (QDockWidget* d : window->findChildren<QDockWidget*>())
    if (d != own && !beside && d->isVisible() && !d->isFloating() &&
        window->dockWidgetArea(d) == Qt::BottomDockWidgetArea)
      beside = d;
  window->removeDockWidget(own);
  window->addDockWidget(area, own, Qt::Horizontal);
  own->show();
  besideCentre_ = presenter;
  fitTitle();
  // Sizes are set after the window's own queued layout, which would undo them.
  QMetaObject::invokeMethod(
      this,
      [this, window, own, beside, presenter] {
        const int w = window->width();
        if (presenter) // a third of the window (at least Back / Next): the centre's legend then wraps less
          window->resizeDocks({own}, {std::max(w * 32 / 100, minimumSizeHint().width() + 4)}, Qt::Horizontal);
        else if (beside)
          window->resizeDocks({beside, own}, {w - w * 4 / 10, w * 4 / 10}, Qt::Horizontal);
      },
      Qt::QueuedConnection);
}

void TeachingView::buildShortcuts() {
  // A presenter's clicker sends Page Down / Page Up; in presenter mode the arrow keys step too.
  auto step = [this](int delta) {
    if (isVisible()) goToStep(std::clamp(index_ + delta, 0, int(steps_.size()) - 1));
  };
  auto* next = new QShortcut(QKeySequence(Qt::Key_PageDown), this, [step] { step(1); });
  auto* previous = new QShortcut(QKeySequence(Qt::Key_PageUp), this, [step] { step(-1); });
  arrowNext_ = new QShortcut(QKeySequence(Qt::Key_Right), this, [step] { step(1); });
  arrowPrevious_ = new QShortcut(QKeySequence(Qt::Key_Left), this, [step] { step(-1); });
  for (QShortcut* s : {next, previous, arrowNext_, arrowPrevious_}) s->setContext(Qt::WindowShortcut);
  arrowNext_->setEnabled(false);
  arrowPrevious_->setEnabled(false);
  next_->setToolTip(tr("Next step (Page Down; → in presenter mode)"));
  prev_->setToolTip(tr("Previous step (Page Up; ← in presenter mode)"));
}

} // namespace maskscope
