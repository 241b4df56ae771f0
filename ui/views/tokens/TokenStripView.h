// The token strip: every position of one batch row as a chip showing its token, role, label
// (graded vs -100), attention bit and position id. Lays chips out in wrapped lines and paints
// only the visible ones, so 8,000+ positions scroll without stutter. Shows whole lines of chips
// only (the spare height below them stays empty) and scrolls by lines; tool runs get a header chip
// with the function's name, image placeholder runs fold into one chip (StripRuns.h).
#pragma once
#include "core/data/Batch.h"
#include "core/mask/MaskedLm.h"
#include "ui/views/tokens/StripRuns.h"

#include <QAbstractScrollArea>
#include <QPainter>
#include <QString>
#include <vector>

namespace maskscope {

class Session;

class TokenStripView : public QAbstractScrollArea {
  Q_OBJECT
public:
  explicit TokenStripView(Session* session, QWidget* parent = nullptr);

  int positionCount() const { return int(chips_.size()); }
  // Show another batch (compare mode) instead of the session's; nullptr returns to the session.
  void setBatchOverride(const Batch* batch, int row);
  // Compare mode: per position, what differs from the aligned position of the other collator's row
  // (core/mask/RowComparison.h's flags: id, label, attention bit, position id; or no counterpart).
  // Empty: not comparing.
  void setDifferences(std::vector<uint8_t> flags);
  int differenceCount() const { return differences_; }
  bool differsAt(int position) const;
  uint8_t differenceAt(int position) const;
  // Paints the visible chips into any painter (export uses this).
  void renderTo(QPainter& p, QRect area, int scroll) const;
  int selectedPosition() const { return selected_; }
  void setSelectedPosition(int position);
  // What the tooltip shows for a position (also used by tests); its last line reads that chip's glyphs.
  QString describePosition(int position) const;
  // How to read a chip's glyphs (the tooltip between chips, F1's legend).
  static QString chipKey();
  // Chip rectangle in viewport coordinates (for tests and hit testing); inside a folded run, the
  // run's one chip.
  QRect chipRect(int position) const;
  // Height of one line of chips (chip and gap): the strip shows whole lines and scrolls by them.
  int lineHeight() const { return chip_.height + kLineGap; }
  // The runs drawn as one (StripRuns.h), in position order.
  const std::vector<StripRun>& runs() const { return runs_; }
  // The words on the run's header chip (or, folded, on its one chip), as painted.
  QString runTitle(const StripRun& run) const;
  // The header chip of the run beginning at position in viewport coordinates (empty: none shown).
  QRect runHeaderRect(int position) const;
  // Folds (or unfolds) the image run holding position; false when no image run holds it.
  bool setRunFolded(int position, bool folded);
  bool isFolded(int position) const; // position lies in a folded run

Q_SIGNALS:
  void positionSelected(int position);

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool viewportEvent(QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void changeEvent(QEvent* event) override;
  // At least two lines of chips, three preferred (the chips' height follows the font).
  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

private:
  // Pixel rows of a chip for a font: the token line, then the label/attention and index/position lines.
  struct ChipGeometry {
    int textTop = 7, textH = 20, smallH = 15, line1Top = 28, line2Top = 44, height = 62;
  };
  static ChipGeometry chipGeometry(const QFont& font);

  static constexpr int kLineGap = 4; // between chips and lines of chips
  struct Chip {
    QString text;         // shared with every chip of the same token id
    bool special = false; // painted bold with a ◆, so laid out with that font and prefix
    int footerKey = 0;    // the footer's shape, "index p<position id>" (FooterShape): its width
    int width = 0;        // content width for the font measured (before padding and the cap)
    QRect rect;           // content coordinates (a folded run's positions share its one chip)
    bool hidden = false;  // inside a folded run, not its first position: not painted
    int run = -1;         // the run (runs_) this position begins, else -1
  };
  void rebuild();
  // Measures each chip's width once per font: text widths per distinct token, footer widths per
  // digit count (the footers' digits are tabular), so 128k chips cost a few hundred shapings.
  void measure();
  void relayout();
  // Whole lines of chips in the viewport: the spare height goes to a bottom margin.
  void fitWholeLines();
  int hitTest(QPoint viewportPos) const;
  int hitRunHeader(QPoint viewportPos) const; // the run whose header chip is there, else -1
  const StripRun* runOf(int position) const;  // the run holding position, else null
  int headerWidth(const StripRun& run) const;
  void paintChipFrame(QPainter& p, QRect rc, PositionKind kind, bool pad, bool graded, bool selected,
                      bool differs) const;
  void paintRunHeader(QPainter& p, const StripRun& run, QRect rc) const;
  QString describeRun(const StripRun& run) const;

  const Batch* batch() const;
  int row() const;
  const MaskedLmRow* maskedLm() const; // the session's BERT aside for this row; null when off

  Session* session_;
  const Batch* override_ = nullptr;
  int overrideRow_ = 0;
  std::vector<uint8_t> differenceFlags_; // [T] RowComparison flags; empty = not comparing
  int differences_ = 0;
  std::vector<Chip> chips_;
  std::vector<StripRun> runs_;
  int selected_ = -1;
  int contentHeight_ = 0;
  ChipGeometry chip_;
  QFont measuredFont_; // the font the chips' widths were measured with
  bool measured_ = false;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in TokenStripViewSpec.cpp.
struct ViewSpec;
ViewSpec tokenStripViewSpec();

} // namespace maskscope
