// Softmax arithmetic and its drawing.
#include "ui/views/softmax/SoftmaxView.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/RowFacts.h"
#include "core/util/Utf8.h"
#include "ui/shell/Session.h"
#include "ui/widgets/Palette.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace maskscope {

namespace {
constexpr int kMaxShownKeys = 12;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

QString num(double v, int decimals = 3) {
  if (std::isinf(v)) return v < 0 ? QStringLiteral("-inf") : QStringLiteral("inf");
  if (v == 0.0) return QStringLiteral("0"); // exactly zero (a blocked key), not a rounded small number
  return QString::number(v, 'f', decimals);
}
// Why a key is blocked, in a table cell.
QString reason(CellState s) {
  switch (s) {
  case CellState::Allowed:
    return QStringLiteral("open");
  case CellState::Future:
    return QStringLiteral("future");
  case CellState::Padding:
    return QStringLiteral("pad");
  case CellState::OtherExample:
    return QStringLiteral("other ex.");
  case CellState::OutsideWindow:
    return QStringLiteral("window");
  }
  return {};
}

// A value or token wider than its column (presenter type, -3.4028e38) is set smaller, down to 70 % of
// the type, then elided: it never runs into the next column.
void drawFitted(QPainter& p, QFont f, QRect r, const QString& s) {
  const int wide = QFontMetrics(f).horizontalAdvance(s);
  if (const double k = std::max(0.7, double(r.width()) / std::max(1, wide)); k < 1.0) {
    if (f.pointSizeF() > 0)
      f.setPointSizeF(f.pointSizeF() * k);
    else
      f.setPixelSize(std::max(1, int(f.pixelSize() * k)));
  }
  p.setFont(f);
  p.drawText(r, Qt::AlignCenter, QFontMetrics(f).elidedText(s, Qt::ElideRight, r.width()));
}

// A huge number the way a teacher writes it: -3.4028e38.
QString big(double v) { return QString::number(v, 'g', 5).replace(QLatin1String("e+"), QLatin1String("e")); }
} // namespace

class SoftmaxChart : public QWidget {
public:
  explicit SoftmaxChart(SoftmaxView* view) : QWidget(view), view_(view) { setMinimumHeight(300); }
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    view_->render(p, rect());
  }
  // The wheel moves the shown keys along the row (three a notch); at either end the panel scrolls.
  void wheelEvent(QWheelEvent* e) override {
    const int notches = (e->angleDelta().y() + e->angleDelta().x()) / 120;
    if (notches == 0 || !view_->scrollKeys(-3 * notches)) return e->ignore();
    e->accept();
  }
  SoftmaxView* view_;
};

SoftmaxView::SoftmaxView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  auto* teach = new QPushButton(tr("Teaching example (2.0, 1.0, 0.1)"), this);
  auto* rowButton = new QPushButton(tr("Selected row"), this);
  querySpin_ = new QSpinBox(this);
  querySpin_->setPrefix(tr("query "));
  scoresEdit_ = new QLineEdit(this);
  scoresEdit_->setPlaceholderText(tr("scores of the shown keys, comma separated"));
  scoresEdit_->setToolTip(
      tr("Edit the raw scores and press Enter: the masked row, e^x, the sum and the weights follow."));
  sourceLabel_ = new QLabel(this);
  bar->addWidget(teach);
  bar->addWidget(rowButton);
  bar->addWidget(querySpin_);
  bar->addWidget(new QLabel(tr("scores:"), this));
  bar->addWidget(scoresEdit_, 1);
  layout->addLayout(bar);
  layout->addWidget(sourceLabel_);
  chart_ = new SoftmaxChart(this);
  layout->addWidget(chart_, 1);

  connect(teach, &QPushButton::clicked, this, &SoftmaxView::showTeachingExample);
  connect(rowButton, &QPushButton::clicked, this, &SoftmaxView::showSelectedRow);
  connect(querySpin_, &QSpinBox::valueChanged, this, [this](int q) {
    if (!teaching_ && q != query_) session_->selectPosition(q);
  });
  connect(scoresEdit_, &QLineEdit::returnPressed, this, [this] {
    std::vector<double> v;
    for (const QString& part : scoresEdit_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
      bool ok = false;
      double d = part.trimmed().toDouble(&ok);
      v.push_back(ok ? d : kNaN);
    }
    setShownScores(v);
  });
  connect(session_, &Session::batchChanged, this, [this] {
    modelScores_.clear();
    modelLabel_.clear();
    edits_.clear();
    keyScroll_ = 0;
    if (!teaching_) recompute();
  });
  connect(session_, &Session::positionChanged, this, [this] {
    keyScroll_ = 0;
    if (!teaching_) recompute();
  });
  recompute();
}

QWidget* SoftmaxView::chart() const { return chart_; }

void SoftmaxView::showTeachingExample() {
  teaching_ = true;
  edits_.clear();
  keyScroll_ = 0;
  recompute();
}

void SoftmaxView::showSelectedRow() {
  teaching_ = false;
  edits_.clear();
  keyScroll_ = 0;
  recompute();
}

void SoftmaxView::setModelScores(std::vector<float> scores, const QString& label) {
  modelScores_ = std::move(scores);
  modelLabel_ = label;
  recompute();
}

void SoftmaxView::setShownScores(const std::vector<double>& scores) {
  if (edits_.size() != scores_.size()) edits_.assign(scores_.size(), kNaN);
  for (size_t i = 0; i < scores.size() && first_ + int(i) < int(edits_.size()) && int(i) < count_; ++i)
    edits_[size_t(first_) + i] = scores[i];
  recompute();
}

QString SoftmaxView::keyText(int k) const {
  if (teaching_) {
    static const char* words[] = {"The", "cat", "sat"};
    return QString::fromLatin1(words[k % 3]);
  }
  const Batch& b = session_->batch();
  return QString::fromStdString(
      utf8::visibleWhitespace(session_->tokenText(b.inputIds.at(session_->batchRow(), k)).toStdString()));
}

void SoftmaxView::recompute() {
  std::vector<CellState> states;
  QString source;
  if (teaching_) {
    scores_ = {2.0, 1.0, 0.1};
    states = {CellState::Allowed, CellState::Allowed, CellState::Future};
    query_ = 1;
    pads_.clear();
    queryGraded_ = false;
    source = tr("Teaching example: the query is \"cat\" (position 1); \"sat\" is in its future, so the causal mask "
                "adds %1 (float32's most negative number).")
                 .arg(big(float32MaskValue()));
  } else if (session_->hasBatch()) {
    const Batch& b = session_->batch();
    const int r = session_->batchRow();
    const int T = int(b.length());
    int q = session_->selectedPosition();
    if (q < 0 || q >= T) q = std::min(T - 1, 8);
    query_ = q;
    try {
      if (const EffectiveMask* m = session_->effectiveMask()) { // the session's attention implementation
        states.resize(size_t(T));
        for (int k = 0; k < T; ++k) states[size_t(k)] = m->state(r, q, k, window_);
      } else {
        states = attentionRow(b, r, q, MaskSemantics::Eager, window_);
      }
      pads_ = paddingOfRow(b, r);           // the one padding rule (collator meta, else the mask / pad-id rule)
      queryGraded_ = gradedAt(b, r, q + 1); // the query's output reaches the loss
    } catch (const std::exception&) {
      states.assign(size_t(T), CellState::Allowed);
      pads_.clear();
    }
    scores_.assign(size_t(T), 0.0);
    const bool model = int64_t(modelScores_.size()) == int64_t(T) * T;
    for (int k = 0; k < T; ++k) {
      if (model) {
        scores_[size_t(k)] = double(modelScores_[size_t(q) * size_t(T) + size_t(k)]);
      } else {
        // Example scores: deterministic in the two token ids, in [-1, 2.5], the query itself high.
        uint64_t h = uint64_t(b.inputIds.at(r, k)) * 2654435761ull ^ uint64_t(b.inputIds.at(r, q)) * 40503ull;
        h ^= h >> 13;
        scores_[size_t(k)] = k == q ? 2.0 : -1.0 + double(h % 3500) / 1000.0;
      }
    }
    source =
        model ? tr("Scores from the model: %1.").arg(modelLabel_) : tr("Edit them above to see the softmax change.");
    if (!layerText_.isEmpty()) source += QLatin1Char(' ') + layerText_ + QLatin1Char('.');
    if (model && softcap_ > 0)
      source += tr(" The model soft-caps its scores (c = %1 tanh(x / %1)) before the mask; the scores shown are "
                   "after the cap.")
                    .arg(softcap_);
  } else {
    scores_.clear();
    pads_.clear();
    queryGraded_ = false;
    source = tr("No batch.");
  }
  bool edited = false;
  if (edits_.size() == scores_.size())
    for (size_t k = 0; k < scores_.size(); ++k)
      if (!std::isnan(edits_[k])) scores_[k] = edits_[k], edited = true;
  const int T = int(scores_.size());
  illustrative_ = teaching_ || edited || int64_t(modelScores_.size()) != int64_t(T) * T;
  if (illustrative_ && T > 0) source = scoresNote() + QLatin1Char(' ') + source;
  count_ = std::min(T, kMaxShownKeys);
  const int around = query_ - (kMaxShownKeys - 4); // the query near the right, its context to the left
  first_ = std::clamp(around + keyScroll_, 0, std::max(0, T - count_));
  keyScroll_ = first_ - around; // never more than the row allows
  // Model scores are the captured pre-softmax scores, already capped; example scores are raw and get the cap here.
  const bool modelScores = !teaching_ && int64_t(modelScores_.size()) == int64_t(T) * T;
  row_ = computeSoftmaxRow(scores_, states, teaching_ || modelScores ? 0.0 : softcap_);
  {
    QSignalBlocker block(querySpin_);
    querySpin_->setEnabled(!teaching_);
    querySpin_->setRange(0, std::max(0, T - 1));
    querySpin_->setValue(query_);
  }
  sourceLabel_->setText(source);
  syncEdit();
  chart_->update();
}

QString SoftmaxView::scoresNote() const {
  if (!illustrative_) return {};
  const bool model =
      int64_t(modelScores_.size()) == int64_t(scores_.size()) * int64_t(scores_.size()) && !scores_.empty();
  const QString why = model ? tr("edited by hand")
                      : !modelLabel_.isEmpty()
                          ? tr("made up from the token ids: %1").arg(modelLabel_)
                          : tr("no model loaded: made up from the token ids; --model shows real ones");
  return teaching_ ? tr("Illustrative scores, not a model's (the textbook example).")
                   : tr("Illustrative scores, not a model's (%1).").arg(why);
}

QString SoftmaxView::sourceText() const { return sourceLabel_->text(); }

bool SoftmaxView::scrollKeys(int keys) {
  const int before = first_;
  keyScroll_ += keys;
  recompute();
  return first_ != before;
}

void SoftmaxView::setLayerAttention(int64_t window, double softcap, const QString& text) {
  window_ = std::max<int64_t>(0, window);
  softcap_ = std::max(0.0, softcap);
  layerText_ = text;
  recompute();
}

void SoftmaxView::syncEdit() {
  QStringList parts;
  for (int k = first_; k < first_ + count_; ++k) parts << QString::number(scores_[size_t(k)], 'g', 4);
  scoresEdit_->setText(parts.join(QStringLiteral(", ")));
}

// The first line: the query, the keys shown and, when pads are open, the share of attention they take.
void SoftmaxView::paintHeadline(QPainter& p, QRect line) const {
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(palette().text().color());
  p.drawText(line, Qt::AlignLeft,
             tr("Query %1 \"%2\": keys %3..%4 of %5 (%6 allowed)")
                 .arg(query_)
                 .arg(keyText(query_))
                 .arg(first_)
                 .arg(first_ + count_ - 1)
                 .arg(row_.scores.size())
                 .arg(row_.allowed));
  const QString pads = padHeadline();
  if (!pads.isEmpty()) { // the headline of a buggy mask or a fully masked query: where the weight goes
    p.setPen(palette::warningText());
    p.drawText(line, Qt::AlignRight, pads);
  }
}

// The headline's share of padding: the same numbers as the footer (core's padAttention), shown when
// pads take any weight.
QString SoftmaxView::padHeadline() const {
  const PadAttention a = padAttention(row_, pads_);
  if (a.share <= 0) return {};
  if (a.fullyMasked)
    return tr("fully masked: %1 % of the uniform weights lands on padding").arg(a.share * 100.0, 0, 'f', 1);
  return tr("%1 % of this query's attention goes to padding").arg(a.share * 100.0, 0, 'f', 1);
}

// Where render() puts things: one label column, then one column per shown key.
struct SoftmaxView::Layout {
  QFont base, bold;
  int lh = 0, labelW = 0, colW = 0, x0 = 0;
};

void SoftmaxView::paintLabel(QPainter& p, const Layout& l, int y, const QString& s) const {
  p.setPen(palette().text().color());
  p.setFont(l.bold);
  p.drawText(QRect(l.x0, y, l.labelW - 8, l.lh), Qt::AlignRight | Qt::AlignVCenter, s);
}

void SoftmaxView::paintCell(QPainter& p, const Layout& l, int i, int y, const QString& s, const QColor& c,
                            bool bold) const {
  p.setPen(c);
  drawFitted(p, bold ? l.bold : l.base, QRect(l.x0 + l.labelW + i * l.colW, y, l.colW - 4, l.lh), s);
}

void SoftmaxView::render(QPainter& p, QRect area) const {
  p.fillRect(area, palette().base());
  p.setPen(palette().text().color());
  if (row_.scores.empty()) {
    p.drawText(area, Qt::AlignCenter, tr("No batch"));
    return;
  }
  Layout l;
  l.base = l.bold = font();
  l.bold.setBold(true);
  l.lh = QFontMetrics(l.base).height() + 4;
  l.labelW = std::max(150, QFontMetrics(l.bold).horizontalAdvance(tr("e^(x + m - %1)").arg(big(row_.shift))) + 20);
  l.colW = std::max(60, (area.width() - l.labelW - 10) / std::max(1, count_));
  l.x0 = area.left() + 6;
  int y = area.top() + 6;
  paintHeadline(p, QRect(l.x0, y, area.width() - 12, l.lh));
  y += l.lh + 4;
  if (illustrative_) { // every snapshot says when the scores are made up (never read as a model's)
    p.setFont(l.base);
    p.setPen(palette::warningText());
    p.drawText(QRect(l.x0, y, area.width() - 12, l.lh), Qt::AlignLeft | Qt::AlignVCenter, scoresNote());
    y += l.lh;
  }
  y = paintTable(p, l, y);
  // Bars: the weight with the mask (solid), without it (outline), blocked keys marked.
  const int barTop = y + 8 + l.lh; // room for the scale caption
  const QString footer = sumText();
  const int footerH =
      QFontMetrics(l.base).boundingRect(QRect(0, 0, area.width() - 12, 4000), Qt::TextWordWrap, footer).height() + 8;
  const int barH = std::max(40, area.bottom() - barTop - footerH - l.lh);
  paintLabel(p, l, barTop + barH / 2 - l.lh / 2, tr("weights"));
  paintBars(p, QRect(l.x0 + l.labelW, barTop, l.colW * std::max(1, count_), barH), l.colW, l.lh);
  y = barTop + barH + 6;
  p.setFont(l.base);
  p.setPen(palette().text().color());
  p.drawText(QRect(l.x0, y, area.width() - 12, footerH), Qt::TextWordWrap, footer);
}

// The arithmetic table, one column per key: key, token, score x, [soft-cap], blocked?, + mask m,
// = x + m, e^(..), weight. Returns the y below its last line.
int SoftmaxView::paintTable(QPainter& p, const Layout& l, int y) const {
  const QColor text = palette().text().color(), dim = palette().placeholderText().color(),
               warn = palette::warningText();
  for (const bool token : {false, true}) { // the key's position, then its token
    paintLabel(p, l, y, token ? tr("token") : tr("key"));
    for (int i = 0; i < count_; ++i) {
      const int k = first_ + i;
      paintCell(p, l, i, y, token ? keyText(k).left(8) : QString::number(k),
                k == query_ ? palette().highlight().color() : text, k == query_);
    }
    y += l.lh;
  }
  struct Line {
    QString name;
    std::function<std::pair<QString, QColor>(int)> f;
  };
  auto open = [&](int k) { return row_.states[size_t(k)] == CellState::Allowed; };
  auto isPad = [&](int k) { return size_t(k) < pads_.size() && pads_[size_t(k)] != 0; };
  std::vector<Line> lines = {
      {tr("score x"), [&](int k) { return std::make_pair(num(row_.scores[size_t(k)], 2), text); }},
      // An open pad is the bug an all-ones mask makes: say so, in the warning colour.
      {tr("blocked?"),
       [&](int k) {
         if (open(k) && isPad(k)) return std::make_pair(tr("open pad!"), warn);
         return std::make_pair(reason(row_.states[size_t(k)]), open(k) ? dim : warn);
       }},
      {tr("+ mask m"),
       [&](int k) {
         return open(k) ? std::make_pair(QStringLiteral("0"), dim) : std::make_pair(big(row_.maskValue), warn);
       }},
      {row_.capped.empty() ? tr("= x + m") : tr("= c + m"),
       [&](int k) {
         return open(k) ? std::make_pair(num(row_.masked[size_t(k)], 2), text)
                        : std::make_pair(big(row_.masked[size_t(k)]), warn);
       }},
      // The value e^(x + m) actually takes: 0 for a blocked key (it underflows), 1 each when all are blocked.
      {row_.shift != 0 ? tr("e^(x + m - %1)").arg(big(row_.shift)) : tr("e^(x + m)"),
       [&](int k) { return std::make_pair(num(row_.exps[size_t(k)], 3), open(k) ? text : warn); }},
      {tr("weight = e^.. / sum"), [&](int k) { return std::make_pair(num(row_.weights[size_t(k)], 3), text); }},
  };
  if (!row_.capped.empty()) // soft-capping comes before the mask: c = cap * tanh(x / cap)
    lines.insert(lines.begin() + 1, {tr("c = %1 tanh(x/%1)").arg(row_.softcap),
                                     [&](int k) { return std::make_pair(num(row_.capped[size_t(k)], 2), text); }});
  for (const Line& line : lines) {
    paintLabel(p, l, y, line.name);
    for (int i = 0; i < count_; ++i) {
      auto [s, c] = line.f(first_ + i);
      paintCell(p, l, i, y, s, c, &line == &lines.back());
    }
    y += l.lh;
  }
  return y;
}

void SoftmaxView::paintBars(QPainter& p, QRect bars, int colW, int lh) const {
  const QColor text = palette().text().color(), dim = palette().placeholderText().color(),
               warn = palette::warningText();
  QFont bold = font();
  bold.setBold(true);
  const int barTop = bars.top(), barH = bars.height();
  // Full bar height = the largest weight shown (with or without the mask), so small weights stay visible.
  double top = 0;
  for (int i = 0; i < count_; ++i)
    top = std::max({top, row_.weights[size_t(first_ + i)], row_.unmasked[size_t(first_ + i)]});
  if (top <= 0) top = 1;
  p.setPen(dim);
  p.setFont(font());
  p.drawText(QRect(bars.left(), barTop - lh, bars.width(), lh), Qt::AlignLeft | Qt::AlignBottom,
             tr("full height = weight %1").arg(num(top, 3)));
  for (int i = 0; i < count_; ++i) {
    const int k = first_ + i;
    const QRect slot(bars.left() + i * colW + colW / 6, barTop, colW * 2 / 3 - 4, barH);
    const double w = row_.weights[size_t(k)], u = row_.unmasked[size_t(k)];
    p.setPen(QPen(dim, 1, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRect(slot.left(), slot.bottom() - int(u / top * barH), slot.width(), int(u / top * barH)));
    if (row_.states[size_t(k)] == CellState::Allowed || row_.fullyMasked) {
      p.fillRect(QRect(slot.left() + 3, slot.bottom() - int(w / top * barH), slot.width() - 6, int(w / top * barH)),
                 palette::graded());
    } else {
      p.setPen(warn);
      p.setFont(bold);
      p.drawText(QRect(slot.left() - 10, slot.bottom() - lh, slot.width() + 20, lh), Qt::AlignCenter,
                 QStringLiteral("\u00d7 0"));
    }
    p.setPen(text);
    p.drawLine(slot.left() - 4, slot.bottom(), slot.right() + 4, slot.bottom());
  }
}

// The footer: the sum of the exponentials, the mask value used and why it is not -inf, and the
// share of attention that goes to padding.
QString SoftmaxView::sumText() const {
  QStringList terms;
  for (int i = 0; i < count_; ++i)
    if (row_.states[size_t(first_ + i)] == CellState::Allowed) terms << num(row_.exps[size_t(first_ + i)], 3);
  if (row_.allowed > int(terms.size())) terms << tr("(%1 more keys)").arg(row_.allowed - int(terms.size()));
  QString text;
  if (row_.fullyMasked)
    text = tr("Every key is blocked: each x + m is %1, so after subtracting the maximum each e^.. is 1 and the row "
              "is uniform (1/%2 each). With -inf instead the sum would be 0 and 0/0 = NaN. %3")
               .arg(big(row_.maskValue))
               .arg(row_.scores.size())
               .arg(queryGraded_ ? tr("Not harmless here: the label at position %1 is graded, so the loss trains on "
                                      "this uniform average.")
                                       .arg(query_ + 1)
                                 : tr("Harmless only because the loss reads nothing from this position (the label "
                                      "at position %1 is -100).")
                                       .arg(query_ + 1));
  else
    text = tr("sum = %1 = %2. Each open key gets e^(x + m) / %2")
               .arg(terms.join(QStringLiteral(" + ")), num(row_.sum, 3)) +
           (row_.allowed < int(row_.scores.size())
                ? tr("; a blocked key's e^(x %1) underflows to exactly 0, so its weight is 0 and the open keys' "
                     "weights add up to 1.")
                      .arg(big(row_.maskValue))
                : tr("; no key is blocked."));
  text += tr("\nm = %1 is float32's most negative number (torch.finfo(float32).min), as transformers adds it; not "
             "-inf, because a row with every key blocked would then give NaN.")
              .arg(big(row_.maskValue));
  text += QLatin1Char('\n') + padText();
  // The same row without the mask, worked through (the dashed outlines).
  QStringList exps, weights;
  for (int i = 0; i < count_ && i < 6; ++i) {
    exps << num(row_.unmaskedExps[size_t(first_ + i)], 3);
    weights << num(row_.unmasked[size_t(first_ + i)], 3);
  }
  const QString more = count_ > 6 || int(row_.scores.size()) > count_ ? QStringLiteral(" + ...") : QString();
  return text + tr("Without the mask (dashed outlines): %1 = %2%3 = %4, weights %5%6.")
                    .arg(row_.unmaskedShift != 0 ? tr("sum e^(x - %1)").arg(big(row_.unmaskedShift)) : tr("sum e^x"),
                         exps.join(QStringLiteral(" + ")), more, num(row_.unmaskedSum, 3),
                         weights.join(QStringLiteral(", ")), more.isEmpty() ? QString() : QStringLiteral(", ..."));
}

// What share of the query's attention goes to padding positions (by core/mask's one padding rule).
QString SoftmaxView::padText() const {
  const PadAttention a = padAttention(row_, pads_);
  if (a.pads == 0) return {};
  if (a.fullyMasked)
    return tr("All %1 keys are blocked, %2 of them pads: the uniform weights put %3 % of this query's attention on "
              "padding. ")
        .arg(row_.scores.size())
        .arg(a.pads)
        .arg(a.share * 100.0, 0, 'f', 1);
  if (a.openPads == 0)
    return tr("The row's %1 pad keys are blocked: 0 % of this query's attention goes to padding. ").arg(a.pads);
  return tr("This query attends %1 of the row's %2 pad keys (the attention mask leaves them open): %3 % of its "
            "attention goes to padding. ")
      .arg(a.openPads)
      .arg(a.pads)
      .arg(a.share * 100.0, 0, 'f', 1);
}

double SoftmaxView::padShare() const { return attentionShare(row_, pads_); }

} // namespace maskscope
