// Painting of token chips. Second cues besides colour, so the strip reads in greyscale and for
// colour-blind readers: graded chips have a thick solid border and "✓ L", ignored ones a dashed
// border and "-100", pads a hatched fill and "PAD", specials bold text and a ◆, unattended "A0".
#include "ui/views/tokens/TokenStripView.h"
#include "core/data/ToolNames.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/RowComparison.h"
#include "core/mask/RowFacts.h"
#include "core/util/Utf8.h"
#include "ui/shell/Session.h"
#include "ui/widgets/Palette.h"

#include <QHash>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>

namespace maskscope {

namespace {
constexpr int kPadX = 6;

int digits(int64_t v) {
  int n = 1;
  for (v = v < 0 ? -v : v; v >= 10; v /= 10) ++n;
  return n;
}

// The footer "index p<position id>" (or the index alone) up to its digits: the digit counts, the
// sign and whether a position id is shown. Footers of one shape are equally wide (tabular digits).
int footerShape(int64_t t, bool havePos, int64_t positionId) {
  return digits(t) * 1000 + (havePos ? 1 + digits(positionId) * 2 + (positionId < 0 ? 1 : 0) : 0);
}

// A footer of the shape key (footerShape), its digits zeros.
QString footerOfShape(int key) {
  const QString index(key / 1000, QLatin1Char('0'));
  const int pos = key % 1000;
  if (pos == 0) return index;
  const QString id = QString((pos - 1) / 2, QLatin1Char('0'));
  return index + (((pos - 1) % 2) ? QStringLiteral(" p-") : QStringLiteral(" p")) + id;
}
} // namespace

TokenStripView::TokenStripView(Session* session, QWidget* parent) : QAbstractScrollArea(parent), session_(session) {
  setFocusPolicy(Qt::StrongFocus);
  viewport()->setMouseTracking(true);
  // The blank height below the whole chip lines (a bottom viewport margin, fitWholeLines) is the
  // strip's background, as the viewport's: not the window's.
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  // Scrolled by whole lines: a value between two lines (a scroll bar dragged) goes to the nearest.
  connect(verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int v) {
    const int line = lineHeight(), snapped = (v + line / 2) / line * line;
    if (snapped != v) verticalScrollBar()->setValue(std::min(snapped, verticalScrollBar()->maximum()));
  });
  connect(session_, &Session::batchChanged, this, [this] {
    if (!override_) rebuild();
  });
  connect(session_, &Session::positionChanged, this, [this](int p) { setSelectedPosition(p); });
  rebuild();
}

const Batch* TokenStripView::batch() const {
  if (override_) return override_;
  return session_->hasBatch() ? &session_->batch() : nullptr;
}
int TokenStripView::row() const { return override_ ? overrideRow_ : session_->batchRow(); }
const MaskedLmRow* TokenStripView::maskedLm() const {
  const MaskedLmRow* m = override_ ? nullptr : session_->maskedLm();
  return m && m->positions == positionCount() ? m : nullptr;
}

void TokenStripView::setBatchOverride(const Batch* b, int r) {
  override_ = b;
  overrideRow_ = r;
  rebuild();
}

void TokenStripView::setDifferences(std::vector<uint8_t> flags) {
  differenceFlags_ = std::move(flags);
  differences_ = 0;
  for (int t = 0; t < positionCount(); ++t) differences_ += differsAt(t);
  viewport()->update();
}

uint8_t TokenStripView::differenceAt(int t) const {
  return t >= 0 && size_t(t) < differenceFlags_.size() ? differenceFlags_[size_t(t)] : 0;
}

bool TokenStripView::differsAt(int t) const { return (differenceAt(t) & DiffAny) != 0; }

void TokenStripView::rebuild() {
  chips_.clear();
  measured_ = false;
  const Batch* b = batch();
  if (b && row() >= 0 && row() < b->batchSize()) {
    const int r = row();
    chips_.resize(size_t(b->length()));
    const bool havePos = b->positionIds.sameShape(b->inputIds);
    QHash<int64_t, QString> texts; // one decoded, whitespace-visible text per distinct id
    for (int64_t t = 0; t < b->length(); ++t) {
      Chip& c = chips_[size_t(t)];
      const int64_t id = b->inputIds.at(r, t);
      auto it = texts.find(id);
      if (it == texts.end())
        it = texts.insert(id, QString::fromStdString(utf8::visibleWhitespace(session_->tokenText(id).toStdString())));
      c.text = *it;
      c.special = size_t(r) < b->meta.size() && b->meta[size_t(r)][size_t(t)].special;
      if (const MaskedLmRow* mlm = maskedLm()) { // the BERT aside: the input BERT reads
        const MlmChoice how = mlm->choice[size_t(t)];
        if (how == MlmChoice::Mask) c.text = QStringLiteral("[MASK]");
        if (how == MlmChoice::Random)
          c.text = QString::fromStdString(
              utf8::visibleWhitespace(session_->tokenText(mlm->inputIds[size_t(t)]).toStdString()));
        c.special = c.special || how == MlmChoice::Mask;
      }
      c.footerKey = footerShape(t, havePos, havePos ? b->positionIds.at(r, t) : 0);
    }
    runs_ = maskedLm() ? std::vector<StripRun>{} : stripRuns(*b, r); // the BERT aside shows every chip
  } else {
    runs_.clear();
  }
  for (size_t k = 0; k < runs_.size(); ++k) chips_[size_t(runs_[k].begin)].run = int(k);
  selected_ = override_ ? -1 : std::min(session_->selectedPosition(), positionCount() - 1);
  if (differenceFlags_.size() != chips_.size()) differenceFlags_.clear(); // another row: the caller sets them anew
  differences_ = 0;
  for (int t = 0; t < positionCount(); ++t) differences_ += differsAt(t);
  relayout();
  viewport()->update();
}

// The chip's lines follow the font (presenter mode enlarges it): a token line tall enough for
// descenders (underscores, the visible-space glyph), then two small lines. At the default font
// this is the 62 px chip of the 20 / 15 / 15 px lines.
TokenStripView::ChipGeometry TokenStripView::chipGeometry(const QFont& font) {
  QFont bold = font;
  bold.setBold(true);
  QFont small = font;
  small.setPointSizeF(small.pointSizeF() * 0.8);
  ChipGeometry g;
  g.textH = std::max(20, QFontMetrics(bold).height() + 2);
  g.smallH = std::max(15, QFontMetrics(small).height());
  g.line1Top = g.textTop + g.textH + 1;
  g.line2Top = g.line1Top + g.smallH + 1;
  g.height = g.line2Top + g.smallH + 3;
  return g;
}

void TokenStripView::changeEvent(QEvent* e) {
  QAbstractScrollArea::changeEvent(e);
  if (e->type() == QEvent::FontChange) {
    relayout();
    updateGeometry(); // the least height follows the chips
    viewport()->update();
  }
}

// One row of chips at least (the strip scrolls): presenter mode's large chips on a 1024 x 768
// projector leave the grid and the bottom panels no room otherwise.
QSize TokenStripView::minimumSizeHint() const {
  const ChipGeometry g = chipGeometry(font());
  return {200, (g.height + kLineGap) + kLineGap + 2 * frameWidth()};
}

QSize TokenStripView::sizeHint() const {
  const ChipGeometry g = chipGeometry(font());
  return {800, 3 * (g.height + kLineGap) + kLineGap + 2 * frameWidth()};
}

void TokenStripView::measure() {
  QFontMetrics fm(font());
  QFont bold = font();
  bold.setBold(true);
  QFontMetrics bm(bold);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  QFontMetrics sm(small);
  const int minW = std::max(sm.horizontalAdvance(QStringLiteral("-100 A1")), 28);
  QHash<int, int> footers;
  QHash<QString, int> plain, special;
  for (Chip& c : chips_) {
    auto f = footers.find(c.footerKey);
    if (f == footers.end()) f = footers.insert(c.footerKey, sm.horizontalAdvance(footerOfShape(c.footerKey)) + 6);
    QHash<QString, int>& widths = c.special ? special : plain;
    auto w = widths.find(c.text);
    if (w == widths.end())
      w = widths.insert(c.text, c.special ? bm.horizontalAdvance(QStringLiteral("\u25c6") + c.text) + 2
                                          : fm.horizontalAdvance(c.text));
    c.width = std::max({*w, minW, *f});
  }
  measuredFont_ = font();
  measured_ = true;
}

void TokenStripView::relayout() {
  chip_ = chipGeometry(font());
  fitWholeLines();
  verticalScrollBar()->setSingleStep(lineHeight());
  if (!measured_ || measuredFont_ != font()) measure();
  const int width = std::max(200, viewport()->width() - kLineGap);
  int x = kLineGap, y = kLineGap;
  auto place = [&](int w) {
    if (x + w > width && x > kLineGap) {
      x = kLineGap;
      y += lineHeight();
    }
    const QRect r(x, y, w, chip_.height);
    x += w + kLineGap;
    return r;
  };
  for (size_t t = 0; t < chips_.size(); ++t) {
    Chip& c = chips_[t];
    c.hidden = false;
    StripRun* run = c.run >= 0 ? &runs_[size_t(c.run)] : nullptr;
    if (run) run->header = run->folded ? QRect() : place(headerWidth(*run));
    c.rect = place(run && run->folded ? headerWidth(*run) : std::min(c.width + 2 * kPadX, 240));
    if (!run || !run->folded) continue;
    for (int u = run->begin + 1; u < run->end; ++u) { // the run's positions share its one chip
      chips_[size_t(u)].rect = c.rect;
      chips_[size_t(u)].hidden = true;
    }
    t = size_t(run->end - 1);
  }
  contentHeight_ = chips_.empty() ? 0 : y + chip_.height + kLineGap;
  QScrollBar* bar = verticalScrollBar();
  bar->setRange(0, std::max(0, contentHeight_ - viewport()->height()));
  bar->setPageStep(std::max(lineHeight(), viewport()->height() - kLineGap));
  const int line = lineHeight(); // another type: scrolled to a whole line of the new chips
  bar->setValue(std::min((bar->value() + line / 2) / line * line, bar->maximum()));
}

// The viewport a whole number of chip lines tall (one at least): a line cut mid-chip reads as a
// chip that is not there. The rest of the height stays blank below the lines.
void TokenStripView::fitWholeLines() {
  const int room = height() - 2 * frameWidth();
  const int lines = std::max(1, (room - kLineGap) / lineHeight());
  const int spare = std::max(0, room - (lines * lineHeight() + kLineGap));
  if (viewportMargins().bottom() != spare) setViewportMargins(0, 0, 0, spare);
}

void TokenStripView::resizeEvent(QResizeEvent* e) {
  QAbstractScrollArea::resizeEvent(e);
  relayout();
}

QRect TokenStripView::chipRect(int position) const {
  if (position < 0 || position >= positionCount()) return {};
  return chips_[size_t(position)].rect.translated(0, -verticalScrollBar()->value());
}

const StripRun* TokenStripView::runOf(int position) const {
  auto it =
      std::upper_bound(runs_.begin(), runs_.end(), position, [](int p, const StripRun& run) { return p < run.begin; });
  if (it == runs_.begin()) return nullptr;
  --it;
  return position < it->end ? &*it : nullptr;
}

bool TokenStripView::isFolded(int position) const {
  const StripRun* run = runOf(position);
  return run && run->folded;
}

bool TokenStripView::setRunFolded(int position, bool folded) {
  const StripRun* found = runOf(position);
  if (!found || found->kind != StripRun::Kind::Image) return false;
  auto& run = runs_[size_t(found - runs_.data())];
  if (run.folded != folded) {
    run.folded = folded;
    relayout();
    viewport()->update();
  }
  return true;
}

QString TokenStripView::runTitle(const StripRun& run) const {
  if (run.kind == StripRun::Kind::Image) {
    const Chip& c = chips_[size_t(run.begin)];
    return QStringLiteral("%1%2%3 \u00d7%4")
        .arg(run.folded ? QStringLiteral("\u25b8 ") : QStringLiteral("\u25be "),
             c.special ? QStringLiteral("\u25c6") : QString(), c.text)
        .arg(run.end - run.begin);
  }
  const QString name = run.name.isEmpty() ? tr("(unnamed)") : run.name;
  return run.kind == StripRun::Kind::ToolCall ? QStringLiteral("\u2699 %1").arg(name)
                                              : QStringLiteral("\u21a9 %1").arg(name);
}

QRect TokenStripView::runHeaderRect(int position) const {
  const StripRun* run = runOf(position);
  if (!run || run->begin != position || run->header.isEmpty()) return {};
  return run->header.translated(0, -verticalScrollBar()->value());
}

// Wide enough for the title in bold and the run's range; capped like a chip (the tooltip has it whole).
int TokenStripView::headerWidth(const StripRun& run) const {
  QFont bold = font();
  bold.setBold(true);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  const int title = QFontMetrics(bold).horizontalAdvance(runTitle(run));
  const int below = QFontMetrics(small).horizontalAdvance(run.kind == StripRun::Kind::Image && !run.folded
                                                              ? tr("image: click to fold")
                                                              : QStringLiteral("-100 \u00d70000 A1"));
  // Slack for glyphs (\u25b8, \u25c6) a fallback font draws wider than measured.
  return std::min(std::max(title, below) + 2 * kPadX + 2 * QFontMetrics(bold).averageCharWidth(), 320);
}

int TokenStripView::hitRunHeader(QPoint p) const {
  const QPoint content = p + QPoint(0, verticalScrollBar()->value());
  for (size_t k = 0; k < runs_.size(); ++k)
    if (runs_[k].header.contains(content)) return int(k);
  return -1;
}

QString TokenStripView::describeRun(const StripRun& run) const {
  const int n = run.end - run.begin;
  switch (run.kind) {
  case StripRun::Kind::ToolCall:
    return tr("tool call %1: positions %2\u2013%3 (%4 tokens, %5 graded)")
        .arg(run.name.isEmpty() ? tr("(unnamed)") : run.name)
        .arg(run.begin)
        .arg(run.end - 1)
        .arg(n)
        .arg(run.graded);
  case StripRun::Kind::ToolOutput:
    return tr("output of %1: positions %2\u2013%3 (%4 tokens, %5 graded)")
        .arg(run.name)
        .arg(run.begin)
        .arg(run.end - 1)
        .arg(n)
        .arg(run.graded);
  case StripRun::Kind::Image:
    break;
  }
  return tr("image placeholder tokens: positions %1\u2013%2, %3 \u00d7 \"%4\", %5 graded; click to %6")
      .arg(run.begin)
      .arg(run.end - 1)
      .arg(n)
      .arg(chips_[size_t(run.begin)].text)
      .arg(run.graded)
      .arg(run.folded ? tr("unfold") : tr("fold"));
}

int TokenStripView::hitTest(QPoint p) const {
  const QPoint content = p + QPoint(0, verticalScrollBar()->value());
  auto it = std::lower_bound(chips_.begin(), chips_.end(), content.y(),
                             [](const Chip& c, int y) { return c.rect.bottom() < y; });
  for (; it != chips_.end() && it->rect.top() <= content.y(); ++it)
    if (it->rect.contains(content)) return int(it - chips_.begin());
  return -1;
}

void TokenStripView::setSelectedPosition(int position) {
  if (position < -1 || position >= positionCount()) return;
  if (position != selected_) {
    selected_ = position;
    if (position >= 0) {
      QRect r = chips_[size_t(position)].rect;
      QScrollBar* sb = verticalScrollBar();
      if (r.top() < sb->value())
        sb->setValue(r.top() - kLineGap);
      else if (r.bottom() > sb->value() + viewport()->height())
        sb->setValue(r.bottom() - viewport()->height() + kLineGap);
    }
    viewport()->update();
    Q_EMIT positionSelected(position);
  }
  if (!override_) session_->selectPosition(position);
}

QString TokenStripView::describePosition(int t) const {
  const Batch* bp = batch();
  if (!bp || t < 0 || t >= positionCount()) return {};
  const Batch& b = *bp;
  const int r = row();
  const int64_t id = b.inputIds.at(r, t);
  const int64_t label = b.labels.sameShape(b.inputIds) ? b.labels.at(r, t) : kIgnoreIndex;
  QString s = tr("position %1\ntoken id %2  \"%3\"\n").arg(t).arg(id).arg(chips_[size_t(t)].text);
  if (size_t(r) < b.meta.size() && size_t(t) < b.meta[size_t(r)].size()) {
    const PositionMeta& m = b.meta[size_t(r)][size_t(t)];
    s += tr("role %1").arg(QString::fromLatin1(positionKindName(m.kind)));
    if (const std::string tool = toolNameOf(m.toolName); !tool.empty())
      s += (m.kind == PositionKind::ToolCall ? tr(" (calls %1)") : tr(" (output of %1)"))
               .arg(QString::fromStdString(tool));
    if (m.messageIndex >= 0) s += tr(", message %1, turn %2").arg(m.messageIndex).arg(m.turn);
    if (m.special) s += tr(", special token");
    if (m.scaffolding && m.kind != PositionKind::Padding) s += tr(", template text");
    if (m.closesReply) s += tr(", closes the reply");
    if (m.replyTruncated) s += tr(", reply truncated");
    s += QLatin1Char('\n');
  } else {
    s += tr("role unknown (batch dump: no conversation)\n");
  }
  // graded-count: ok (the tooltip names the label's value; graded is gradedAt's)
  s += label == kIgnoreIndex ? tr("label -100 (ignored by the loss)\n")
       : gradedAt(b, r, t)   ? tr("label %1 (graded)\n").arg(label)
                             : tr("label %1 at position 0: never scored (the model shifts; not graded)\n").arg(label);
  s += tr("attention_mask %1\n").arg(b.attentionMask.sameShape(b.inputIds) ? b.attentionMask.at(r, t) : 1);
  s += b.positionIds.sameShape(b.inputIds) ? tr("position id %1").arg(b.positionIds.at(r, t))
                                           : tr("position id %1 (default 0..T-1)").arg(t);
  if (const MaskedLmRow* mlm = maskedLm(); mlm && mlm->choice[size_t(t)] != MlmChoice::None) {
    const MlmChoice how = mlm->choice[size_t(t)];
    s += tr("\nBERT aside: chosen; the input is %1; BERT's label here is %2 (the original token, graded at this "
            "position)")
             .arg(how == MlmChoice::Mask     ? tr("[MASK]")
                  : how == MlmChoice::Random ? tr("a random token, \"%1\"").arg(chips_[size_t(t)].text)
                                             : tr("the token kept"))
             .arg(mlm->labels[size_t(t)]);
  } else if (maskedLm()) {
    s += tr("\nBERT aside: not chosen, BERT's label -100");
  }
  // The chip's own glyphs read out, as paintChips draws them.
  const bool havePos = b.positionIds.sameShape(b.inputIds);
  const int64_t att = b.attentionMask.sameShape(b.inputIds) ? b.attentionMask.at(r, t) : 1;
  s += tr("\nOn the chip: %1, A%2 = attention_mask %2, %3 = the position")
           .arg(b.labels.sameShape(b.inputIds) && gradedAt(b, r, t) ? tr("\u2713 L = its label is graded")
                                                                    : tr("-100 = its label is not graded"))
           .arg(att)
           .arg(t);
  if (havePos) s += tr(", p%1 = its position id").arg(b.positionIds.at(r, t));
  if (const uint8_t d = differenceAt(t); d & DiffNoCounterpart) {
    s += tr("\nno counterpart in the compared row (rows aligned at their first real token)");
  } else if (d & DiffAny) {
    QStringList what;
    if (d & DiffId) what << tr("input id");
    if (d & DiffLabel) what << tr("label");
    if (d & DiffAttention) what << tr("attention bit");
    if (d & DiffPositionId) what << tr("position id");
    s += tr("\ndiffers from the compared collator: %1").arg(what.join(QStringLiteral(", ")));
  } else if (d & DiffPadId) {
    s += tr("\npad id differs from the compared collator's (both mask this position: no difference in training)");
  }
  return s;
}

void TokenStripView::renderTo(QPainter& p, QRect area, int scroll) const {
  p.fillRect(area, palette().base());
  const Batch* bp = batch();
  if (!bp || chips_.empty()) {
    p.setPen(palette().text().color());
    p.drawText(area, Qt::AlignCenter, tr("No conversation selected"));
    return;
  }
  const Batch& b = *bp;
  const int r = row();
  const int top = scroll, bottom = scroll + area.height();
  const QFont tokenFont = font();
  QFont boldFont = tokenFont;
  boldFont.setBold(true);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  const bool haveLabels = b.labels.sameShape(b.inputIds), haveMask = b.attentionMask.sameShape(b.inputIds);
  const bool havePos = b.positionIds.sameShape(b.inputIds);
  const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == b.length();
  const std::vector<uint8_t> padding = paddingOfRow(b, r); // the one pad rule (core/mask)
  const MaskedLmRow* mlm = maskedLm();
  auto first =
      std::lower_bound(chips_.begin(), chips_.end(), top, [](const Chip& c, int y) { return c.rect.bottom() < y; });
  for (auto it = first; it != chips_.end() && it->rect.top() <= bottom; ++it) {
    const int t = int(it - chips_.begin());
    if (it->hidden) continue;
    const QRect rc = it->rect.translated(area.left(), area.top() - scroll);
    const PositionMeta meta = haveMeta ? b.meta[size_t(r)][size_t(t)] : PositionMeta{};
    // Reaches the loss (core/mask/RowFacts.h); in the BERT aside, BERT's label: the chosen positions.
    const StripRun* run = it->run >= 0 ? &runs_[size_t(it->run)] : nullptr; // folded: the run's one chip
    const bool folded = run && run->folded;
    const bool graded = folded ? run->graded > 0
                        : mlm  ? mlm->choice[size_t(t)] != MlmChoice::None
                               : haveLabels && gradedAt(b, r, t);
    const int64_t att = haveMask ? b.attentionMask.at(r, t) : 1;
    const bool pad = padding[size_t(t)] != 0;
    const bool selected = folded ? selected_ >= run->begin && selected_ < run->end : t == selected_;
    paintChipFrame(p, rc, meta.kind, pad, graded, selected, differsAt(t));
    const bool maskChip = mlm && mlm->choice[size_t(t)] == MlmChoice::Mask;
    if (maskChip) p.fillRect(rc.adjusted(4, 6, -4, -4), palette::maskedLmChip());
    p.setPen(palette().text().color());
    p.setFont(meta.special || maskChip ? boldFont : tokenFont);
    QRect textRect(rc.left() + kPadX, rc.top() + chip_.textTop, rc.width() - 2 * kPadX, chip_.textH);
    QString text = folded ? runTitle(*run) : meta.special && !maskChip ? QStringLiteral("\u25c6") + it->text : it->text;
    p.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(p.font()).elidedText(text, Qt::ElideRight, textRect.width()));
    p.setFont(small);
    QRect l1(rc.left() + kPadX, rc.top() + chip_.line1Top, rc.width() - 2 * kPadX, chip_.smallH);
    QRect l2(rc.left() + kPadX, rc.top() + chip_.line2Top, rc.width() - 2 * kPadX, chip_.smallH);
    p.setPen(graded ? (pad ? palette::gradedPad() : palette::graded()) : palette().placeholderText().color());
    const QString gradedText =
        folded ? QStringLiteral("\u2713 L \u00d7%1").arg(run->graded) : QStringLiteral("\u2713 L"); // x the graded
    p.drawText(l1, Qt::AlignLeft | Qt::AlignVCenter, graded ? gradedText : QStringLiteral("-100"));
    p.setPen(att != 0 ? palette().text().color() : palette::warningText());
    p.drawText(l1, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("A%1").arg(att));
    p.setPen(palette().placeholderText().color());
    p.drawText(l2, Qt::AlignLeft | Qt::AlignVCenter,
               folded ? QStringLiteral("%1\u2013%2").arg(run->begin).arg(run->end - 1) : QString::number(t));
    if (havePos && !folded)
      p.drawText(l2, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("p%1").arg(b.positionIds.at(r, t)));
  }
  for (const StripRun& run : runs_)
    if (!run.header.isEmpty() && run.header.bottom() >= top && run.header.top() <= bottom)
      paintRunHeader(p, run, run.header.translated(area.left(), area.top() - scroll));
}

void TokenStripView::paintChipFrame(QPainter& p, QRect rc, PositionKind kind, bool pad, bool graded, bool selected,
                                    bool differs) const {
  QColor tint = palette::roleColour(pad ? PositionKind::Padding : kind);
  tint.setAlpha(palette::theme() == palette::Theme::Dark ? 70 : 55);
  p.fillRect(rc, tint);
  if (pad) p.fillRect(rc, QBrush(graded ? palette::gradedPad() : palette::padding(), Qt::BDiagPattern));
  p.fillRect(QRect(rc.left(), rc.top(), rc.width(), 5), palette::roleColour(pad ? PositionKind::Padding : kind));
  QPen border(graded ? (pad ? palette::gradedPad() : palette::graded()) : palette::ignored());
  border.setWidth(graded ? 3 : 1);
  border.setStyle(graded ? Qt::SolidLine : Qt::DashLine);
  p.setPen(border);
  p.setBrush(Qt::NoBrush);
  p.drawRect(rc.adjusted(1, 1, -2, -2));
  if (differs) {
    QPen d(QColor(0xc0, 0x00, 0xc0));
    d.setWidth(3);
    p.setPen(d);
    p.drawRect(rc.adjusted(-2, -2, 1, 1));
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRect(rc.right() - 14, rc.top() + 4, 14, 16), Qt::AlignCenter, QStringLiteral("\u2260"));
  }
  if (selected) {
    QPen sel(palette().highlight().color());
    sel.setWidth(3);
    p.setPen(sel);
    p.drawRect(rc.adjusted(-1, -1, 0, 0));
  }
}

// A run's header chip: the role's colour, solid, the function's name (or the folded image token) in
// bold, what the run is and its positions below.
void TokenStripView::paintRunHeader(QPainter& p, const StripRun& run, QRect rc) const {
  const PositionKind kind = run.kind == StripRun::Kind::ToolCall     ? PositionKind::ToolCall
                            : run.kind == StripRun::Kind::ToolOutput ? PositionKind::Tool
                                                                     : PositionKind::Image;
  QColor tint = palette::roleColour(kind);
  tint.setAlpha(palette::theme() == palette::Theme::Dark ? 120 : 100);
  p.setPen(QPen(palette::roleColour(kind), 2));
  p.setBrush(tint);
  p.drawRoundedRect(rc.adjusted(1, 1, -2, -2), 6, 6);
  p.setBrush(Qt::NoBrush);
  QFont bold = font();
  bold.setBold(true);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  const QRect text(rc.left() + kPadX, rc.top() + chip_.textTop, rc.width() - 2 * kPadX, chip_.textH);
  p.setPen(palette().text().color());
  p.setFont(bold);
  p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter,
             QFontMetrics(bold).elidedText(runTitle(run), Qt::ElideRight, text.width()));
  p.setFont(small);
  const QString what = run.kind == StripRun::Kind::ToolCall     ? tr("tool call")
                       : run.kind == StripRun::Kind::ToolOutput ? tr("tool output")
                                                                : tr("image: click to fold");
  p.drawText(QRect(text.left(), rc.top() + chip_.line1Top, text.width(), chip_.smallH),
             Qt::AlignLeft | Qt::AlignVCenter, what);
  p.setPen(palette().placeholderText().color());
  p.drawText(QRect(text.left(), rc.top() + chip_.line2Top, text.width(), chip_.smallH),
             Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("%1\u2013%2").arg(run.begin).arg(run.end - 1));
}

void TokenStripView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  renderTo(p, viewport()->rect(), verticalScrollBar()->value());
}

// A folded image run unfolds (its first position selected); an unfolded one's header folds it.
void TokenStripView::mousePressEvent(QMouseEvent* e) {
  if (const int k = hitRunHeader(e->position().toPoint()); k >= 0) {
    if (runs_[size_t(k)].kind == StripRun::Kind::Image) setRunFolded(runs_[size_t(k)].begin, true);
    return;
  }
  const int hit = hitTest(e->position().toPoint());
  if (hit >= 0 && isFolded(hit)) setRunFolded(hit, false);
  if (hit >= 0) setSelectedPosition(hit);
}

void TokenStripView::keyPressEvent(QKeyEvent* e) {
  const int n = positionCount();
  if (n == 0) return QAbstractScrollArea::keyPressEvent(e);
  switch (e->key()) {
  case Qt::Key_Right:
    setSelectedPosition(std::min(n - 1, selected_ + 1));
    break;
  case Qt::Key_Left:
    setSelectedPosition(std::max(0, selected_ - 1));
    break;
  case Qt::Key_Home:
    setSelectedPosition(0);
    break;
  case Qt::Key_End:
    setSelectedPosition(n - 1);
    break;
  case Qt::Key_Down:
  case Qt::Key_Up: {
    // The chip straight below/above the selection.
    if (selected_ < 0) {
      setSelectedPosition(0);
      break;
    }
    const QRect cur = chips_[size_t(selected_)].rect;
    const int dy = e->key() == Qt::Key_Down ? chip_.height + kLineGap : -(chip_.height + kLineGap);
    const QPoint target(cur.center().x(), cur.center().y() + dy);
    int best = selected_;
    for (int t = selected_; t >= 0 && t<n; t += dy> 0 ? 1 : -1) {
      const QRect& c = chips_[size_t(t)].rect;
      if (c.top() <= target.y() && c.bottom() >= target.y()) {
        best = t;
        if (c.left() <= target.x() && c.right() >= target.x()) break;
      } else if ((dy > 0 && c.top() > target.y()) || (dy < 0 && c.bottom() < target.y()))
        break;
    }
    setSelectedPosition(best);
    break;
  }
  default:
    QAbstractScrollArea::keyPressEvent(e);
  }
}

QString TokenStripView::chipKey() {
  return tr("How to read a chip: the token on top (\u25c6: a special token); below it \u2713 L: its label is "
            "graded, it reaches the loss (thick solid border), or -100: ignored (dashed border); on the right A1 "
            "or A0: its attention_mask; on the last line its position and p14: its position id (shown when the "
            "batch has position_ids); \u2260: it differs from the compared collator. A tool call's chips follow a "
            "header chip naming the function (\u2699 name; \u21a9 name: its output); a run of image placeholder "
            "tokens is one chip (\u25b8 <|image_pad|> \u00d7256) that unfolds on click.");
}

bool TokenStripView::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    if (const int k = hitRunHeader(he->pos()); k >= 0) {
      QToolTip::showText(he->globalPos(), describeRun(runs_[size_t(k)]), viewport());
      return true;
    }
    const int hit = hitTest(he->pos());
    if (const StripRun* run = hit >= 0 && isFolded(hit) ? runOf(hit) : nullptr) {
      QToolTip::showText(he->globalPos(), describeRun(*run), viewport());
      return true;
    }
    // Over a chip: that position; between chips: how to read one.
    QToolTip::showText(he->globalPos(), hit >= 0 ? describePosition(hit) : chipKey(), viewport());
    return true;
  }
  return QAbstractScrollArea::viewportEvent(e);
}

} // namespace maskscope
