// Painting of token chips. Second cues besides colour: graded chips have a solid border and a
// check mark, ignored ones a dashed border and "-100", pads a hatched fill, specials bold text.
#include "ui/TokenStripView.h"
#include "core/util/Utf8.h"
#include "ui/Palette.h"
#include "ui/Session.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>

namespace maskscope {

namespace {
constexpr int kChipHeight = 62;
constexpr int kGap = 4;
constexpr int kPadX = 6;
} // namespace

TokenStripView::TokenStripView(Session* session, QWidget* parent) : QAbstractScrollArea(parent), session_(session) {
  setFocusPolicy(Qt::StrongFocus);
  viewport()->setMouseTracking(true);
  verticalScrollBar()->setSingleStep(kChipHeight / 2);
  connect(session_, &Session::batchChanged, this, &TokenStripView::rebuild);
  rebuild();
}

void TokenStripView::rebuild() {
  chips_.clear();
  selected_ = -1;
  if (session_->hasBatch()) {
    const Batch& b = session_->batch();
    const int r = session_->batchRow();
    chips_.resize(size_t(b.length()));
    for (int64_t t = 0; t < b.length(); ++t) {
      QString text = QString::fromStdString(utf8::visibleWhitespace(session_->tokenText(b.inputIds.at(r, t)).toStdString()));
      chips_[size_t(t)].text = text;
    }
  }
  relayout();
  viewport()->update();
}

void TokenStripView::relayout() {
  QFont tokenFont = font();
  QFontMetrics fm(tokenFont);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.75);
  QFontMetrics sm(small);
  const int width = std::max(200, viewport()->width() - kGap);
  int x = kGap, y = kGap;
  for (size_t i = 0; i < chips_.size(); ++i) {
    Chip& c = chips_[i];
    int w = std::max({fm.horizontalAdvance(c.text), sm.horizontalAdvance(QStringLiteral("-100 A1")), 28}) + 2 * kPadX;
    w = std::min(w, 240);
    if (x + w > width && x > kGap) { x = kGap; y += kChipHeight + kGap; }
    c.rect = QRect(x, y, w, kChipHeight);
    x += w + kGap;
  }
  contentHeight_ = chips_.empty() ? 0 : y + kChipHeight + kGap;
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
  if (position < -1 || position >= positionCount() || position == selected_) return;
  selected_ = position;
  if (position >= 0) {
    QRect r = chips_[size_t(position)].rect;
    QScrollBar* sb = verticalScrollBar();
    if (r.top() < sb->value()) sb->setValue(r.top() - kGap);
    else if (r.bottom() > sb->value() + viewport()->height()) sb->setValue(r.bottom() - viewport()->height() + kGap);
  }
  viewport()->update();
  Q_EMIT positionSelected(position);
}

QString TokenStripView::describePosition(int t) const {
  if (!session_->hasBatch() || t < 0 || t >= positionCount()) return {};
  const Batch& b = session_->batch();
  const int r = session_->batchRow();
  const int64_t id = b.inputIds.at(r, t);
  const int64_t label = b.labels.at(r, t);
  QString s = QStringLiteral("position %1\ntoken %2  \"%3\"\n").arg(t).arg(id).arg(chips_[size_t(t)].text);
  if (size_t(r) < b.meta.size()) {
    const PositionMeta& m = b.meta[size_t(r)][size_t(t)];
    s += QStringLiteral("role %1").arg(QString::fromLatin1(positionKindName(m.kind)));
    if (m.messageIndex >= 0) s += QStringLiteral(", message %1, turn %2").arg(m.messageIndex).arg(m.turn);
    if (m.special) s += QStringLiteral(", special token");
    if (m.scaffolding && m.kind != PositionKind::Padding) s += QStringLiteral(", template text");
    if (m.closesReply) s += QStringLiteral(", closes the reply");
    s += QLatin1Char('\n');
  }
  s += label == kIgnoreIndex ? QStringLiteral("label -100 (ignored by the loss)\n")
                             : QStringLiteral("label %1 (graded)\n").arg(label);
  s += QStringLiteral("attention_mask %1\n").arg(b.attentionMask.at(r, t));
  if (b.positionIds.sameShape(b.inputIds)) s += QStringLiteral("position id %1").arg(b.positionIds.at(r, t));
  return s;
}

void TokenStripView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  p.fillRect(viewport()->rect(), palette().base());
  if (!session_->hasBatch()) {
    p.drawText(viewport()->rect(), Qt::AlignCenter, tr("No conversation selected"));
    return;
  }
  const Batch& b = session_->batch();
  const int r = session_->batchRow();
  const int scroll = verticalScrollBar()->value();
  const int top = scroll, bottom = scroll + viewport()->height();
  QFont tokenFont = font();
  QFont boldFont = tokenFont;
  boldFont.setBold(true);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.75);
  auto first = std::lower_bound(chips_.begin(), chips_.end(), top, [](const Chip& c, int y) { return c.rect.bottom() < y; });
  for (auto it = first; it != chips_.end() && it->rect.top() <= bottom; ++it) {
    const int t = int(it - chips_.begin());
    const QRect rc = it->rect.translated(0, -scroll);
    const PositionMeta meta = size_t(r) < b.meta.size() ? b.meta[size_t(r)][size_t(t)] : PositionMeta{};
    const bool graded = b.labels.at(r, t) != kIgnoreIndex;
    const bool attended = b.attentionMask.at(r, t) != 0;
    const bool pad = meta.kind == PositionKind::Padding;

    // Background: role tint; pads hatched.
    QColor tint = palette::roleColour(meta.kind);
    tint.setAlpha(60);
    p.fillRect(rc, tint);
    if (pad) p.fillRect(rc, QBrush(graded ? palette::gradedPad() : palette::padding(), Qt::BDiagPattern));
    // Role band.
    p.fillRect(QRect(rc.left(), rc.top(), rc.width(), 4), palette::roleColour(meta.kind));
    // Border: graded solid blue (red on a pad), ignored dashed grey.
    QPen border(graded ? (pad ? palette::gradedPad() : palette::graded()) : palette::ignored().darker(130));
    border.setWidth(graded ? 2 : 1);
    border.setStyle(graded ? Qt::SolidLine : Qt::DashLine);
    p.setPen(border);
    p.setBrush(Qt::NoBrush);
    p.drawRect(rc.adjusted(1, 1, -1, -1));
    if (t == selected_) {
      QPen sel(palette().highlight().color());
      sel.setWidth(3);
      p.setPen(sel);
      p.drawRect(rc.adjusted(-1, -1, 1, 1));
    }
    // Token text.
    p.setPen(palette().text().color());
    p.setFont(meta.special ? boldFont : tokenFont);
    QRect textRect(rc.left() + kPadX, rc.top() + 6, rc.width() - 2 * kPadX, 20);
    p.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(p.font()).elidedText(it->text, Qt::ElideRight, textRect.width()));
    // Label and attention line, position id line.
    p.setFont(small);
    QRect l1(rc.left() + kPadX, rc.top() + 27, rc.width() - 2 * kPadX, 15);
    QRect l2(rc.left() + kPadX, rc.top() + 43, rc.width() - 2 * kPadX, 15);
    p.setPen(graded ? (pad ? palette::gradedPad() : palette::graded()) : palette().placeholderText().color());
    p.drawText(l1, Qt::AlignLeft | Qt::AlignVCenter, graded ? QStringLiteral("\u2713 L") : QStringLiteral("-100"));
    p.setPen(attended ? palette().text().color() : palette::padding().darker(140));
    p.drawText(l1, Qt::AlignRight | Qt::AlignVCenter, attended ? QStringLiteral("A%1").arg(b.attentionMask.at(r, t)) : QStringLiteral("A0"));
    p.setPen(palette().placeholderText().color());
    QString pos = b.positionIds.sameShape(b.inputIds) ? QStringLiteral("p%1").arg(b.positionIds.at(r, t)) : QString();
    p.drawText(l2, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("%1").arg(t));
    p.drawText(l2, Qt::AlignRight | Qt::AlignVCenter, pos);
  }
}

void TokenStripView::mousePressEvent(QMouseEvent* e) {
  int hit = hitTest(e->position().toPoint());
  if (hit >= 0) setSelectedPosition(hit);
}

void TokenStripView::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Right) setSelectedPosition(std::min(positionCount() - 1, selected_ + 1));
  else if (e->key() == Qt::Key_Left) setSelectedPosition(std::max(0, selected_ - 1));
  else QAbstractScrollArea::keyPressEvent(e);
}

bool TokenStripView::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    int hit = hitTest(he->pos());
    if (hit >= 0) QToolTip::showText(he->globalPos(), describePosition(hit), viewport());
    else QToolTip::hideText();
    return true;
  }
  return QAbstractScrollArea::viewportEvent(e);
}

} // namespace maskscope
