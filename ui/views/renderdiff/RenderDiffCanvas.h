// The render-diff view's drawing: per assistant turn of one row, the trained tokens (top) above
// the tokens a server feeds the model (bottom), aligned column by column, differing tokens marked,
// runs of identical tokens folded. Renders into any painter (the view, exports, snapshots).
#pragma once
#include "core/collate/TrainServeDiff.h"

#include <QPainter>
#include <QString>
#include <QWidget>
#include <vector>

namespace maskscope {

class Tokenizer;

class RenderDiffCanvas : public QWidget {
  Q_OBJECT
public:
  explicit RenderDiffCanvas(QWidget* parent = nullptr);

  // The row's turns (diffTrainServe) and how to spell their ids; message: shown instead when not empty.
  void setTurns(QString title, std::vector<TurnDiff> turns, const Tokenizer* tokenizer);
  void setMessage(QString message);
  const std::vector<TurnDiff>& turns() const { return turns_; }
  const QString& message() const { return message_; } // what is shown instead of turns; empty when turns are
  const QString& title() const { return title_; }     // the line above the turns
  // Columns drawn as differing, over every turn (tests: each difference of every turn is one).
  int markedColumns() const { return marked_; }

  // Paints everything into area (top-left aligned); returns the height used.
  int render(QPainter& p, QRect area);
  QSize sizeHint() const override;

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

private:
  // One aligned column: a training token over a serving token (either may be missing), or a fold.
  struct Column {
    int train = -1, serve = -1; // indexes into the turn's sequences; -1 = missing on that side
    bool differs = false;
    int folded = 0; // > 0: this column stands for that many identical columns
  };
  static std::vector<Column> columnsOf(const TurnDiff& t);
  QString tokenText(int32_t id) const;
  void relayout();

  QString title_, message_;
  std::vector<TurnDiff> turns_;
  const Tokenizer* tokenizer_ = nullptr;
  int marked_ = 0;
  int contentHeight_ = 0;
};

} // namespace maskscope
