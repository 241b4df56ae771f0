// The softmax view: for one query position, the raw scores of the keys, the same row after adding
// the mask (0, or float32's most negative number for a blocked key, with why), e^x, the sum and the division, and the
// resulting weights as bars: blocked keys exactly 0, survivors renormalised. Scores come from the model when one is
// loaded, otherwise from editable example scores; the textbook example (2.0, 1.0, 0.1) is one click away.
#pragma once
#include "core/mask/SoftmaxArithmetic.h"

#include <QString>
#include <QWidget>
#include <vector>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace maskscope {

class Session;

class SoftmaxChart;

class SoftmaxView : public QWidget {
  Q_OBJECT
public:
  explicit SoftmaxView(Session* session, QWidget* parent = nullptr);

  void showTeachingExample(); // keys A B C, scores 2.0 1.0 0.1, query at B (C is future)
  void showSelectedRow();     // the session's row and selected position
  bool teachingExample() const { return teaching_; }
  int query() const { return query_; }
  const SoftmaxRow& current() const { return row_; }
  int firstShownKey() const { return first_; }
  int shownKeyCount() const { return count_; }
  // Moves the shown keys along the row (the wheel over the chart); false when already at that end.
  // A new query or batch shows the keys around the query again.
  bool scrollKeys(int keys);
  // Scores from the model for the current row: [T, T], the engine's captured pre-softmax scores
  // (rowScores: q k^T * scale, after the model's soft-cap, before the mask); this view adds the mask and
  // softmaxes them with and without it. label names them. Empty = example scores (illustrative), and a
  // non-empty label then says why the model's were not captured.
  void setModelScores(std::vector<float> scores, const QString& label);
  // The layer shown: a sliding window (0 = full) blocks keys older than it ("outside the window");
  // softcap > 0 adds the soft-capping line c = cap * tanh(x / cap) to example scores (a model's scores
  // are captured after its capping). text names the layer in the source line.
  void setLayerAttention(int64_t window, double softcap, const QString& text);
  // Overrides the scores of the shown keys (what the edit box does).
  void setShownScores(const std::vector<double>& scores);
  void render(QPainter& p, QRect area) const;
  QWidget* chart() const;
  // Share of the query's attention on padding keys (padAttention: 0 when pads are blocked, unless
  // every key is: a fully masked query spreads its weight evenly, pads included).
  double padShare() const;
  const std::vector<uint8_t>& paddingKeys() const { return pads_; }
  // The headline's statement about padding ("" when pads take no weight) and the footer's sentence:
  // both from core's padAttention, so they cannot disagree.
  QString padHeadline() const;
  QString padText() const;
  QString footerText() const { return sumText(); }
  // True when the scores shown are not a model's: no model loaded (scores made up from the token ids),
  // the teaching example, or scores edited by hand. The view, its source line and every snapshot (PNG,
  // SVG) then carry scoresNote(), so a made-up number is never read as a model's.
  bool illustrativeScores() const { return illustrative_; }
  QString scoresNote() const; // "illustrative scores, not a model's: ..." ("" for a model's scores)
  QString sourceText() const; // the line above the chart: where the scores come from

private:
  void recompute();
  void syncEdit();
  struct Layout;
  int paintTable(QPainter& p, const Layout& l, int y) const; // render()'s arithmetic, one column per key
  void paintLabel(QPainter& p, const Layout& l, int y, const QString& s) const;
  void paintCell(QPainter& p, const Layout& l, int i, int y, const QString& s, const QColor& c, bool bold) const;
  void paintBars(QPainter& p, QRect bars, int colW, int lh) const; // render()'s weight bars, one column per key
  void paintHeadline(QPainter& p, QRect line) const;
  QString sumText() const;
  QString keyText(int k) const;

  Session* session_;
  SoftmaxChart* chart_ = nullptr;
  QSpinBox* querySpin_ = nullptr;
  QLineEdit* scoresEdit_ = nullptr;
  QLabel* sourceLabel_ = nullptr;
  bool teaching_ = false;
  int query_ = 0;
  int first_ = 0, count_ = 0;
  int keyScroll_ = 0;              // keys the wheel moved the shown window by, from its place around the query
  std::vector<double> scores_;     // every key of the current query
  std::vector<double> edits_;      // user overrides by key (NaN = none)
  std::vector<float> modelScores_; // [T, T]
  QString modelLabel_;             // what the model's scores are, or why there are none (modelScores_ empty)
  int64_t window_ = 0;
  double softcap_ = 0;
  QString layerText_;
  std::vector<uint8_t> pads_; // [T] 1 = padding key (paddingOfRow); empty in the example
  bool queryGraded_ = false;  // the label after the query is graded: its output reaches the loss
  bool illustrative_ = true;  // the scores are not a model's (see illustrativeScores)
  SoftmaxRow row_;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in SoftmaxViewSpec.cpp.
struct ViewSpec;
ViewSpec softmaxViewSpec();

} // namespace maskscope
