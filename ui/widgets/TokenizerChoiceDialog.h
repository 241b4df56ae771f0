// The question the app asks when it opens a batch dump whose ids the tokenizer in use cannot have
// made: which tokenizer made it? Lists the recent and cached tokenizers, those that fit first and among
// them those the evidence supports (core's rankTokenizersByEvidence, judged in a worker), the others
// with the reason they do not; only a tokenizer the evidence supports is pre-selected. "Other file or
// folder..." picks any; closing it keeps the dump undecoded (ids only), never the wrong tokenizer.
#pragma once
#include "core/data/Batch.h"
#include "core/lint/TokenizerEvidence.h"
#include "core/lint/TokenizerFit.h"

#include <QDialog>
#include <QFutureWatcher>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <vector>

class QLabel;
class QListWidget;
class QPushButton;

namespace maskscope {

class TokenizerChoiceDialog : public QDialog {
  Q_OBJECT
public:
  // dump: the batch as its file holds it; current / fit: the tokenizer in use and why it does not fit;
  // candidates: what to judge (the recent ones, builtin:demo, the cached ones), in the order offered.
  TokenizerChoiceDialog(std::shared_ptr<const Batch> dump, const QString& dumpName, const QString& current,
                        const TokenizerFit& fit, std::vector<TokenizerCandidate> candidates,
                        const RenderOptions& variables, QWidget* parent = nullptr);
  ~TokenizerChoiceDialog() override;

  bool ranking() const { return ranking_; } // the candidates are still being judged
  const std::vector<TokenizerCandidate>& ranked() const { return ranked_; }
  // The evidence for ranked()[i] (core/lint/TokenizerEvidence.h), and whether it supports pre-selecting it.
  const TokenizerEvidence& evidence(size_t i) const { return evidence_.at(i); }
  bool supported(size_t i) const { return ranked_.at(i).fit.fits && evidence_.at(i).rowsStartingSpecial > 0; }
  QListWidget* list() const { return list_; }
  QString explanationText() const;
  // The tokenizer chosen (the selected row, or a file picked with "Other"); empty when none.
  QString chosenSpec() const { return chosen_; }
  // Selects the candidate with this spec and accepts (what a double-click does); false if not listed.
  bool choose(const QString& spec);

  // The candidates the app offers for a dump: the recent tokenizers, builtin:demo, then the cached ones.
  static std::vector<TokenizerCandidate> appCandidates(const QStringList& recent);

private:
  void showRanked();
  void updateButton();

  QLabel* text_ = nullptr;
  QListWidget* list_ = nullptr;
  QPushButton* useButton_ = nullptr;
  std::vector<TokenizerCandidate> ranked_;
  std::vector<TokenizerEvidence> evidence_; // parallel to ranked_
  QFutureWatcher<std::vector<RankedTokenizer>>* watcher_ = nullptr;
  std::shared_ptr<std::atomic<bool>> cancelled_;
  bool ranking_ = true;
  QString chosen_;
};

} // namespace maskscope
