// Preference view: both sequences of the selected pair, rebuilt through the session's pipeline
// (tokenizer, template, collator) whenever the row or the pipeline changes and the view is shown.
#include "ui/views/preference/PreferenceView.h"
#include "core/collate/PreferencePairs.h"
#include "core/lint/LintRegistry.h"
#include "core/mask/RowFacts.h"
#include "ui/shell/Session.h"
#include "ui/views/tokens/TokenStripView.h"

#include <QLabel>
#include <QVBoxLayout>

namespace maskscope {

PreferenceView::PreferenceView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QVBoxLayout(this);
  notice_ = new QLabel(this);
  notice_->setWordWrap(true);
  chosenLabel_ = new QLabel(this);
  rejectedLabel_ = new QLabel(this);
  chosenStrip_ = new TokenStripView(session_, this);
  rejectedStrip_ = new TokenStripView(session_, this);
  layout->addWidget(notice_);
  layout->addWidget(chosenLabel_);
  layout->addWidget(chosenStrip_, 1);
  layout->addWidget(rejectedLabel_);
  layout->addWidget(rejectedStrip_, 1);
  for (auto signal : {&Session::batchChanged, &Session::pipelineChanged, &Session::datasetChanged})
    connect(session_, signal, this, &PreferenceView::refreshIfVisible);
}

void PreferenceView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (dirty_) refresh();
}

void PreferenceView::refreshIfVisible() {
  dirty_ = true;
  if (isVisible()) refresh();
}

QString PreferenceView::sideSummary(const char* side, const Batch& b, int promptTokens) const {
  const int64_t graded = gradedInRow(b, 0); // graded as every count: reaches the loss (RowFacts.h)
  return tr("<b>%1</b>: %2 positions, prompt %3 (label -100), %4 graded (the completion and the EOS TRL appends)")
      .arg(QString::fromLatin1(side))
      .arg(b.length())
      .arg(promptTokens)
      .arg(graded);
}

void PreferenceView::refresh() {
  dirty_ = false;
  chosen_ = Batch();
  rejected_ = Batch();
  QString notice;
  const PreferenceRow* row = session_->preferenceRow(session_->selectedRow());
  if (!row || !session_->pipeline()) {
    notice = tr("Open a preference dataset (rows with prompt, chosen and rejected, as TRL's DPO reads them) to see "
                "the chosen and rejected sequences side by side.");
  } else {
    try {
      const EncodedPreference pair = encodePreference(*session_->pipeline(), *row);
      PreferenceBatches batches = collatePreference(*session_->pipeline(), {pair});
      chosen_ = std::move(batches.chosen);
      rejected_ = std::move(batches.rejected);
      chosenLabel_->setText(sideSummary("chosen", chosen_, pair.chosen.encoded.completionStart));
      rejectedLabel_->setText(sideSummary("rejected", rejected_, pair.rejected.encoded.completionStart));
      LintReport report;
      FindingCollector out(report);
      for (const LintRule& rule : lintRules())
        if (rule.preference) rule.preference(PreferenceInput{pair, out});
      for (const Finding& f : report.findings)
        notice += QStringLiteral("%1: %2\n").arg(QString::fromStdString(f.rule), QString::fromStdString(f.message));
    } catch (const std::exception& e) {
      notice = tr("Cannot build this pair: %1").arg(QString::fromUtf8(e.what()));
    }
  }
  notice_->setText(notice.trimmed());
  notice_->setVisible(!notice.isEmpty());
  const bool have = chosen_.batchSize() > 0;
  chosenLabel_->setVisible(have);
  rejectedLabel_->setVisible(have);
  chosenStrip_->setBatchOverride(&chosen_, 0); // empty when there is no pair: never the session's batch
  rejectedStrip_->setBatchOverride(&rejected_, 0);
}

QString PreferenceView::chosenSummary() const { return chosenLabel_->text(); }
QString PreferenceView::rejectedSummary() const { return rejectedLabel_->text(); }
QString PreferenceView::noticeText() const { return notice_->text(); }

} // namespace maskscope
