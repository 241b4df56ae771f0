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
constexpr int kGap = 4;
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
  verticalScrollBar()->setSingleStep(chip_.height / 2);
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
  }
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
  return {200, (g.height + kGap) + kGap + 2 * frameWidth()};
}

QSize TokenStripView::sizeHint() const {
  const ChipGeometry g = chipGeometry(font());
  return {800, 3 * (g.height + kGap) + kGap + 2 * frameWidth()};
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
  verticalScrollBar()->setSingleStep(chip_.height / 2);
  if (!measured_ || measuredFont_ != font()) measure();
  const int width = std::max(200, viewport()->width() - kGap);
  int x = kGap, y = kGap;
  for (Chip& c : chips_) {
    const int w = std::min(c.width + 2 * kPadX, 240);
    if (x + w > width && x > kGap) {
      x = kGap;
      y += chip_.height + kGap;
    }
    c.rect = QRect(x, y, w, chip_.height);
    x += w + kGap;
  }
  contentHeight_ = chips_.empty() ? 0 : y + chip_.height + kGap;
  verticalScrollBar()->setRange(0, std::max(0, contentHeight_ - viewport()->height()));
  verticalScrollBar()->setPageStep(viewport()->height());
}

void TokenStripView::resizeEvent(QResizeEvent* e) {
  QAbstractScrollArea::resizeEvent(e);
  relayout();
}

QRect TokenStripView::chipRect(int position) const {
  if (position < 0 || position >= positionCount()) return {};
  return chips_[size_t(position)].rect.translated(0, -verticalScrollBar()->value());
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
        sb->setValue(r.top() - kGap);
      else if (r.bottom() > sb->value() + viewport()->height())
        sb->setValue(r.bottom() - viewport()->height() + kGap);
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
    const QRect rc = it->rect.translated(area.left(), area.top() - scroll);
    const PositionMeta meta = haveMeta ? b.meta[size_t(r)][size_t(t)] : PositionMeta{};
    // Reaches the loss (core/mask/RowFacts.h); in the BERT aside, BERT's label: the chosen positions.
    const bool graded = mlm ? mlm->choice[size_t(t)] != MlmChoice::None : haveLabels && gradedAt(b, r, t);
    const int64_t att = haveMask ? b.attentionMask.at(r, t) : 1;
    const bool pad = padding[size_t(t)] != 0;

    QColor tint = palette::roleColour(pad ? PositionKind::Padding : meta.kind);
    tint.setAlpha(palette::theme() == palette::Theme::Dark ? 70 : 55);
    p.fillRect(rc, tint);
    if (pad) p.fillRect(rc, QBrush(graded ? palette::gradedPad() : palette::padding(), Qt::BDiagPattern));
    p.fillRect(QRect(rc.left(), rc.top(), rc.width(), 5), palette::roleColour(pad ? PositionKind::Padding : meta.kind));
    QPen border(graded ? (pad ? palette::gradedPad() : palette::graded()) : palette::ignored());
    border.setWidth(graded ? 3 : 1);
    border.setStyle(graded ? Qt::SolidLine : Qt::DashLine);
    p.setPen(border);
    p.setBrush(Qt::NoBrush);
    p.drawRect(rc.adjusted(1, 1, -2, -2));
    if (differsAt(t)) {
      QPen d(QColor(0xc0, 0x00, 0xc0));
      d.setWidth(3);
      p.setPen(d);
      p.drawRect(rc.adjusted(-2, -2, 1, 1));
      p.setFont(boldFont);
      p.drawText(QRect(rc.right() - 14, rc.top() + 4, 14, 16), Qt::AlignCenter, QStringLiteral("\u2260"));
    }
    if (t == selected_) {
      QPen sel(palette().highlight().color());
      sel.setWidth(3);
      p.setPen(sel);
      p.drawRect(rc.adjusted(-1, -1, 0, 0));
    }
    const bool maskChip = mlm && mlm->choice[size_t(t)] == MlmChoice::Mask;
    if (maskChip) p.fillRect(rc.adjusted(4, 6, -4, -4), palette::maskedLmChip());
    p.setPen(palette().text().color());
    p.setFont(meta.special || maskChip ? boldFont : tokenFont);
    QRect textRect(rc.left() + kPadX, rc.top() + chip_.textTop, rc.width() - 2 * kPadX, chip_.textH);
    QString text = meta.special && !maskChip ? QStringLiteral("\u25c6") + it->text : it->text;
    p.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(p.font()).elidedText(text, Qt::ElideRight, textRect.width()));
    p.setFont(small);
    QRect l1(rc.left() + kPadX, rc.top() + chip_.line1Top, rc.width() - 2 * kPadX, chip_.smallH);
    QRect l2(rc.left() + kPadX, rc.top() + chip_.line2Top, rc.width() - 2 * kPadX, chip_.smallH);
    p.setPen(graded ? (pad ? palette::gradedPad() : palette::graded()) : palette().placeholderText().color());
    p.drawText(l1, Qt::AlignLeft | Qt::AlignVCenter, graded ? QStringLiteral("\u2713 L") : QStringLiteral("-100"));
    p.setPen(att != 0 ? palette().text().color() : palette::warningText());
    p.drawText(l1, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("A%1").arg(att));
    p.setPen(palette().placeholderText().color());
    p.drawText(l2, Qt::AlignLeft | Qt::AlignVCenter, QString::number(t));
    if (havePos) p.drawText(l2, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("p%1").arg(b.positionIds.at(r, t)));
  }
}

void TokenStripView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  renderTo(p, viewport()->rect(), verticalScrollBar()->value());
}

void TokenStripView::mousePressEvent(QMouseEvent* e) {
  int hit = hitTest(e->position().toPoint());
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
    const int dy = e->key() == Qt::Key_Down ? chip_.height + kGap : -(chip_.height + kGap);
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
            "batch has position_ids); \u2260: it differs from the compared collator.");
}

bool TokenStripView::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    int hit = hitTest(he->pos());
    // Over a chip: that position; between chips: how to read one.
    QToolTip::showText(he->globalPos(), hit >= 0 ? describePosition(hit) : chipKey(), viewport());
    return true;
  }
  return QAbstractScrollArea::viewportEvent(e);
}

} // namespace maskscope
