// The end of a Training lab run: both models' greedy generations on the held-out prompts side by
// side, each ending with its end-of-turn token highlighted, or flagged where none came within the
// length limit, under each run's stop_fraction and final losses.
#pragma once
#include "core/tokenizer/Tokenizer.h"
#include "core/train/TrainPlan.h"

#include <QWidget>

class QTextBrowser;

namespace maskscope {

class TrainingLabGenerations : public QWidget {
  Q_OBJECT
public:
  explicit TrainingLabGenerations(QWidget* parent = nullptr);
  void clear();
  void showResults(const TrainABPlan& plan, const TrainReport& report);
  QString html(int run) const; // what run 0 / 1 shows
  QString heading(int run) const;

private:
  QString headingHtml(int run) const;
  QString heading_[2];
  QTextBrowser* text_[2] = {};
};

// One generation as HTML: the text before the stop token, then the stop token as a highlighted chip,
// or a flag saying that no end-of-turn token came within maxNewTokens.
QString generationHtml(const GenerationRecord& g, const Tokenizer& tokenizer, int64_t maxNewTokens);

} // namespace maskscope
