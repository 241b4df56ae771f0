// Layout: a turn is a sequence of columns (core/collate/TrainServeDiff.h's alignment: matched
// tokens, then each difference as one column with the side that lacks a token left empty). Only
// the neighbourhood of each difference is drawn; longer runs of identical columns become one fold
// chip. Columns wrap into lines, two chip rows per line: training on top, serving below.
#include "ui/views/renderdiff/RenderDiffCanvas.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Utf8.h"
#include "ui/widgets/Palette.h"

#include <QPaintEvent>
#include <algorithm>

namespace maskscope {

namespace {

constexpr int kMargin = 8, kChipPad = 4, kChipGap = 3, kLineGap = 8, kContext = 2, kMinFold = 4;

QColor verdictColour(TrainServeVerdict v) {
  return v == TrainServeVerdict::Identical ? palette::graded() : palette::warningText();
}

} // namespace

RenderDiffCanvas::RenderDiffCanvas(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("renderDiffCanvas"));
  setAutoFillBackground(false);
}

void RenderDiffCanvas::setTurns(QString title, std::vector<TurnDiff> turns, const Tokenizer* tokenizer) {
  title_ = std::move(title);
  message_.clear();
  turns_ = std::move(turns);
  tokenizer_ = tokenizer;
  relayout();
}

void RenderDiffCanvas::setMessage(QString message) {
  message_ = std::move(message);
  turns_.clear();
  marked_ = 0;
  relayout();
}

// Matched columns between the differences, each difference one column; then the neighbourhood of
// each difference kept and the longer runs of identical columns folded.
std::vector<RenderDiffCanvas::Column> RenderDiffCanvas::columnsOf(const TurnDiff& t) {
  std::vector<Column> all;
  int64_t i = 0, j = 0;
  auto matchUntil = [&](int64_t ti, int64_t sj) {
    while (i < ti && j < sj && i < int64_t(t.train.size()) && j < int64_t(t.serve.size()))
      all.push_back({int(i++), int(j++), false, 0});
  };
  for (const TokenDifference& d : t.differences) {
    matchUntil(d.trainPosition, d.servePosition);
    Column c{-1, -1, true, 0};
    if (d.train) c.train = int(i++);
    if (d.serve) c.serve = int(j++);
    all.push_back(c);
  }
  matchUntil(int64_t(t.train.size()), int64_t(t.serve.size()));
  std::vector<uint8_t> keep(all.size(), 0);
  for (size_t k = 0; k < all.size(); ++k)
    if (all[k].differs)
      for (size_t n = k >= kContext ? k - kContext : 0; n <= k + kContext && n < all.size(); ++n) keep[n] = 1;
  if (!all.empty()) keep.back() = 1; // the reply's last token (its closing token)
  std::vector<Column> out;
  for (size_t k = 0; k < all.size();) {
    size_t e = k;
    while (e < all.size() && !keep[e]) ++e;
    if (e - k >= size_t(kMinFold)) {
      out.push_back({-1, -1, false, int(e - k)});
    } else {
      for (size_t n = k; n < e; ++n) out.push_back(all[n]);
    }
    if (e < all.size()) out.push_back(all[e]);
    k = e + 1;
  }
  return out;
}

QString RenderDiffCanvas::tokenText(int32_t id) const {
  QString s = tokenizer_ ? QString::fromStdString(utf8::visibleWhitespace(tokenizer_->displayText(id)))
                         : QStringLiteral("#%1").arg(id);
  return s.size() > 18 ? s.left(17) + QChar(0x2026) : s;
}

int RenderDiffCanvas::render(QPainter& p, QRect area) {
  p.save();
  p.fillRect(area, palette().base());
  QFont bold = font();
  bold.setBold(true);
  const QFontMetrics fm(font());
  const int chipH = fm.height() + 2 * kChipPad;
  int y = area.top() + kMargin;
  const int left = area.left() + kMargin, right = area.right() - kMargin;
  auto line = [&](const QString& text, const QColor& colour, const QFont& f) {
    p.setFont(f);
    p.setPen(colour);
    const QRect r(left, y, right - left, QFontMetrics(f).height() * 3);
    QRect used;
    p.drawText(r, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text, &used);
    y += used.height() + 4;
  };
  if (!message_.isEmpty()) {
    line(message_, palette().text().color(), font());
    p.restore();
    return y - area.top();
  }
  line(title_, palette().text().color(), bold);
  line(tr("top: the tokens trained on · bottom: what a server feeds the model when it generates the turn · "
          "yellow with a red edge: differs · ∅: no token on that side · blue edge: the reply"),
       palette::ignored(), font());
  marked_ = 0;
  for (const TurnDiff& t : turns_) {
    y += 4;
    line(tr("message %1: %2 (training %3 tokens, serving %4; %5 differ)")
             .arg(t.message)
             .arg(QString::fromLatin1(trainServeVerdictName(t.verdict)))
             .arg(t.train.size())
             .arg(t.serve.size())
             .arg(t.differences.size()),
         verdictColour(t.verdict), bold);
    p.setFont(font());
    int x = left;
    for (const Column& c : columnsOf(t)) {
      const QString top = c.folded       ? tr("… %1 same …").arg(c.folded)
                          : c.train >= 0 ? tokenText(t.train[size_t(c.train)])
                                         : QStringLiteral("∅");
      const QString bottom = c.folded       ? QString()
                             : c.serve >= 0 ? tokenText(t.serve[size_t(c.serve)])
                                            : QStringLiteral("∅");
      const int w = std::max(fm.horizontalAdvance(top), fm.horizontalAdvance(bottom)) + 2 * kChipPad;
      if (x + w > right && x > left) {
        x = left;
        y += 2 * chipH + kChipGap + kLineGap;
      }
      auto chip = [&](QRect r, const QString& text, bool missing, bool reply) {
        const QColor edge = c.differs ? palette::warningText() : palette::ignored();
        p.setPen(QPen(reply ? palette::graded() : edge, reply ? 2 : 1, missing ? Qt::DashLine : Qt::SolidLine));
        p.setBrush(c.differs ? QBrush(palette::mix(palette().base().color(), palette::diffColour(), 0.35))
                             : QBrush(Qt::NoBrush));
        p.drawRoundedRect(r.adjusted(0, 0, -1, -1), 3, 3);
        p.setPen(c.folded ? palette::ignored() : palette().text().color());
        p.drawText(r, Qt::AlignCenter, text);
      };
      if (c.folded) {
        chip(QRect(x, y, w, 2 * chipH + kChipGap), top, false, false);
      } else {
        chip(QRect(x, y, w, chipH), top, c.train < 0, c.train >= t.trainReplyStart);
        chip(QRect(x, y + chipH + kChipGap, w, chipH), bottom, c.serve < 0, c.serve >= t.serveReplyStart);
        marked_ += c.differs;
      }
      x += w + kChipGap;
    }
    y += 2 * chipH + kChipGap + kLineGap;
  }
  p.restore();
  return y - area.top();
}

void RenderDiffCanvas::relayout() {
  // The height the content takes at the current width, measured by painting into a null device.
  QImage probe(1, 1, QImage::Format_ARGB32);
  QPainter p(&probe);
  p.setFont(font());
  contentHeight_ = render(p, QRect(0, 0, std::max(width(), 200), 100000));
  setMinimumHeight(contentHeight_);
  update();
}

QSize RenderDiffCanvas::sizeHint() const { return {640, std::max(contentHeight_, 200)}; }

void RenderDiffCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, rect());
}

void RenderDiffCanvas::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  relayout();
}

} // namespace maskscope
