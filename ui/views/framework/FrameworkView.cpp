// Framework view: the run's facts above, the options form and the prepared row side by side.
#include "ui/views/framework/FrameworkView.h"
#include "core/frameworks/PreparedFramework.h"
#include "ui/shell/Session.h"
#include "ui/views/framework/FrameworkOptionsForm.h"
#include "ui/views/framework/PreparedRowTable.h"

#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace maskscope {

FrameworkView::FrameworkView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("frameworkSummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* scroll = formScroll_ = new QScrollArea(split);
  scroll->setWidgetResizable(true);
  form_ = new FrameworkOptionsForm(session_, scroll);
  scroll->setWidget(form_);
  prepared_ = new PreparedRowTable(session_, split);
  split->addWidget(scroll);
  split->addWidget(prepared_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  // Neither side collapses behind the splitter: a wide prepared table would leave the form its
  // scroll area's least width (~60 px: labels cut, no fields), docked or floated alike.
  split->setChildrenCollapsible(false);
  layout->addWidget(split, 1);
  connect(session_, &Session::pipelineChanged, this, &FrameworkView::refresh);
  connect(session_, &Session::batchChanged, this, &FrameworkView::refresh);
  refresh();
}

QString FrameworkView::summaryText() const { return summary_->text(); }

void FrameworkView::refresh() {
  // The form's labels and fields whole (its rows change with the collator), its vertical scroll bar
  // beside them; at most kMaxFormWidth, past which its fields grow no more useful. Measured again once
  // the new rows are shown: rows added to a form on screen are shown by a queued call, and a hidden row
  // counts for nothing in the form's size (the ~25 px form of a framework picked with the window up).
  auto fit = [this] {
    constexpr int kMaxFormWidth = 560;
    const int bar = formScroll_->verticalScrollBar()->sizeHint().width();
    formScroll_->setMinimumWidth(
        std::min(kMaxFormWidth, form_->sizeHint().width() + bar + 2 * formScroll_->frameWidth()));
  };
  fit();
  QTimer::singleShot(0, this, fit);
  const FrameworkSpec* spec = session_->frameworkSpec();
  if (!spec) {
    summary_->setText(tr("No framework: a collator preset builds the batch. Pick a framework in the toolbar "
                         "(beside the collator) or open its config (File > Open framework config\u2026)."));
    return;
  }
  QString text = tr("<b>%1</b> &mdash; from %2")
                     .arg(QString::fromStdString(spec->describe()).toHtmlEscaped(),
                          QString::fromStdString(spec->source).toHtmlEscaped());
  if (spec->versionInfo)
    text += tr("<br>as read from %1").arg(QString::fromStdString(spec->versionInfo->readFrom).toHtmlEscaped());
  if (const PreparedFramework* p = session_->preparedFramework()) {
    const FrameworkFacts& f = p->facts();
    text += tr("<br>rows: %1 read, %2 after preparation").arg(f.rowsIn).arg(f.rowsPrepared);
    if (!f.dropped.empty()) text += tr(", <b>%1 dropped</b>").arg(f.dropped.size());
    // The preparation's warnings, then the collator's (the batch's facts repeat the first ones).
    std::vector<std::string> notes = f.warnings;
    if (const auto& batchFacts = session_->batch().framework)
      for (const std::string& w : batchFacts->warnings)
        if (std::find(notes.begin(), notes.end(), w) == notes.end()) notes.push_back(w);
    for (const std::string& w : notes)
      text +=
          tr("<br>&#9888; %1: %2").arg(QString::fromStdString(f.framework), QString::fromStdString(w).toHtmlEscaped());
  } else if (!session_->frameworkError().isEmpty()) {
    text += tr("<br>&#9888; %1").arg(session_->frameworkError().toHtmlEscaped());
  }
  if (!spec->ignored.empty()) {
    QStringList names;
    for (const std::string& n : spec->ignored) names << QString::fromStdString(n);
    text += tr("<br>ignored (no effect on the batch): %1").arg(names.join(QStringLiteral(", ")));
  }
  summary_->setText(text);
}

} // namespace maskscope
