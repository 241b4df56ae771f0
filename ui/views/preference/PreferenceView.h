// The preference view: the selected preference pair (prompt/chosen/rejected) as the two sequences
// TRL's DPOTrainer builds, chosen above rejected, each a token strip with its labels (prompt -100,
// completion graded) and a line of counts, plus the preference-prompt-mismatch finding when it fires.
#pragma once
#include "core/data/Batch.h"

#include <QWidget>

class QLabel;

namespace maskscope {

class Session;
class TokenStripView;

class PreferenceView : public QWidget {
  Q_OBJECT
public:
  explicit PreferenceView(Session* session, QWidget* parent = nullptr);

  // Rebuilds both sequences of the selected row now (the view does so itself when shown).
  void refresh();
  TokenStripView* chosenStrip() const { return chosenStrip_; }
  TokenStripView* rejectedStrip() const { return rejectedStrip_; }
  const Batch& chosen() const { return chosen_; }
  const Batch& rejected() const { return rejected_; }
  QString chosenSummary() const;
  QString rejectedSummary() const;
  QString noticeText() const; // why nothing is shown, or the mismatch finding

protected:
  void showEvent(QShowEvent* event) override;

private:
  void refreshIfVisible();
  QString sideSummary(const char* side, const Batch& b, int promptTokens) const;

  Session* session_;
  QLabel* chosenLabel_ = nullptr;
  QLabel* rejectedLabel_ = nullptr;
  QLabel* notice_ = nullptr;
  TokenStripView* chosenStrip_ = nullptr;
  TokenStripView* rejectedStrip_ = nullptr;
  Batch chosen_, rejected_;
  bool dirty_ = true;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in PreferenceViewSpec.cpp.
struct ViewSpec;
ViewSpec preferenceViewSpec();

} // namespace maskscope
