// Softmax arithmetic and its drawing.
#include "ui/SoftmaxView.h"
#include "core/util/Utf8.h"
#include "ui/Palette.h"
#include "ui/Session.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>
#include <functional>
#include <limits>

namespace maskscope {

namespace {
constexpr int kMaxShownKeys = 12;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

QString num(double v, int decimals = 3) {
  if (std::isinf(v)) return v < 0 ? QStringLiteral("-inf") : QStringLiteral("inf");
  return QString::number(v, 'f', decimals);
}
QString reason(CellState s) {
  switch (s) {
  case CellState::Allowed:
    return QStringLiteral("0");
  case CellState::Future:
    return QStringLiteral("-inf future");
  case CellState::Padding:
    return QStringLiteral("-inf pad");
  case CellState::OtherExample:
    return QStringLiteral("-inf other ex.");
  }
  return {};
}
} // namespace

SoftmaxRow computeSoftmaxRow(const std::vector<double>& scores, const std::vector<CellState>& states) {
  SoftmaxRow r;
  const size_t n = std::min(scores.size(), states.size());
  r.scores.assign(scores.begin(), scores.begin() + long(n));
  r.states.assign(states.begin(), states.begin() + long(n));
  r.exps.assign(n, 0.0);
  r.weights.assign(n, 0.0);
  r.unmasked.assign(n, 0.0);
  double maxAll = -std::numeric_limits<double>::infinity(), maxAllowed = maxAll;
  for (size_t k = 0; k < n; ++k) {
    maxAll = std::max(maxAll, r.scores[k]);
    if (r.states[k] == CellState::Allowed) {
      maxAllowed = std::max(maxAllowed, r.scores[k]);
      ++r.allowed;
    }
  }
  // Show e^x itself for readable numbers; shift by the max only when e^x would overflow.
  r.shift = maxAllowed > 30 ? maxAllowed : 0.0;
  for (size_t k = 0; k < n; ++k)
    if (r.states[k] == CellState::Allowed) {
      r.exps[k] = std::exp(r.scores[k] - r.shift);
      r.sum += r.exps[k];
    }
  r.fullyMasked = r.allowed == 0 && n > 0;
  if (r.fullyMasked) {
    // transformers fills with finfo(dtype).min, not -inf: every key ties, the row becomes uniform.
    for (size_t k = 0; k < n; ++k) r.weights[k] = 1.0 / double(n);
  } else {
    for (size_t k = 0; k < n; ++k) r.weights[k] = r.exps[k] / r.sum; // blocked: 0 / sum = exactly 0
  }
  double usum = 0;
  for (size_t k = 0; k < n; ++k) usum += std::exp(r.scores[k] - maxAll);
  for (size_t k = 0; k < n; ++k) r.unmasked[k] = n ? std::exp(r.scores[k] - maxAll) / usum : 0;
  return r;
}

class SoftmaxChart : public QWidget {
public:
  explicit SoftmaxChart(SoftmaxView* view) : QWidget(view), view_(view) { setMinimumHeight(300); }
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    view_->render(p, rect());
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
    edits_.clear();
    if (!teaching_) recompute();
  });
  connect(session_, &Session::positionChanged, this, [this] {
    if (!teaching_) recompute();
  });
  recompute();
}

QWidget* SoftmaxView::chart() const { return chart_; }

void SoftmaxView::showTeachingExample() {
  teaching_ = true;
  edits_.clear();
  recompute();
}

void SoftmaxView::showSelectedRow() {
  teaching_ = false;
  edits_.clear();
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
    source = tr(
        "Teaching example: the query is \"cat\" (position 1); \"sat\" is in its future, so the causal mask adds -inf.");
  } else if (session_->hasBatch()) {
    const Batch& b = session_->batch();
    const int r = session_->batchRow();
    const int T = int(b.length());
    int q = session_->selectedPosition();
    if (q < 0 || q >= T) q = std::min(T - 1, 8);
    query_ = q;
    try {
      states = attentionRow(b, r, q);
    } catch (const std::exception&) {
      states.assign(size_t(T), CellState::Allowed);
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
    source = model ? tr("Scores from the model: %1.").arg(modelLabel_)
                   : tr("Example scores (no model loaded: load one to see real scores). Edit them above.");
  } else {
    scores_.clear();
    source = tr("No batch.");
  }
  if (edits_.size() == scores_.size())
    for (size_t k = 0; k < scores_.size(); ++k)
      if (!std::isnan(edits_[k])) scores_[k] = edits_[k];
  const int T = int(scores_.size());
  count_ = std::min(T, kMaxShownKeys);
  first_ = std::clamp(query_ - (kMaxShownKeys - 4), 0, std::max(0, T - count_));
  row_ = computeSoftmaxRow(scores_, states);
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

void SoftmaxView::syncEdit() {
  QStringList parts;
  for (int k = first_; k < first_ + count_; ++k) parts << QString::number(scores_[size_t(k)], 'g', 4);
  scoresEdit_->setText(parts.join(QStringLiteral(", ")));
}

void SoftmaxView::render(QPainter& p, QRect area) const {
  p.fillRect(area, palette().base());
  p.setPen(palette().text().color());
  if (row_.scores.empty()) {
    p.drawText(area, Qt::AlignCenter, tr("No batch"));
    return;
  }
  const QFont base = font();
  QFont bold = base;
  bold.setBold(true);
  const int lh = QFontMetrics(base).height() + 4;
  const int labelW = std::max(150, QFontMetrics(bold).horizontalAdvance(tr("e^(x - %1)").arg(num(row_.shift, 1))) + 20);
  const int colW = std::max(60, (area.width() - labelW - 10) / std::max(1, count_));
  int y = area.top() + 6;
  const int x0 = area.left() + 6;
  auto cell = [&](int i, int yy, const QString& s, const QColor& c, bool b = false) {
    p.setPen(c);
    p.setFont(b ? bold : base);
    p.drawText(QRect(x0 + labelW + i * colW, yy, colW - 4, lh), Qt::AlignCenter, s);
  };
  auto label = [&](int yy, const QString& s) {
    p.setPen(palette().text().color());
    p.setFont(bold);
    p.drawText(QRect(x0, yy, labelW - 8, lh), Qt::AlignRight | Qt::AlignVCenter, s);
  };
  const QColor text = palette().text().color(), dim = palette().placeholderText().color(),
               warn = palette::warningText();
  p.setFont(bold);
  p.drawText(QRect(x0, y, area.width() - 12, lh), Qt::AlignLeft,
             tr("Query %1 \"%2\": keys %3..%4 of %5 (%6 allowed)")
                 .arg(query_)
                 .arg(keyText(query_))
                 .arg(first_)
                 .arg(first_ + count_ - 1)
                 .arg(row_.scores.size())
                 .arg(row_.allowed));
  y += lh + 4;
  label(y, tr("key"));
  for (int i = 0; i < count_; ++i) {
    const int k = first_ + i;
    cell(i, y, QStringLiteral("%1 %2").arg(k).arg(keyText(k).left(8)),
         k == query_ ? palette().highlight().color() : text, k == query_);
  }
  y += lh;
  struct Line {
    QString name;
    std::function<std::pair<QString, QColor>(int)> f;
  };
  const std::vector<Line> lines = {
      {tr("score x"), [&](int k) { return std::make_pair(num(row_.scores[size_t(k)], 2), text); }},
      {tr("+ mask"),
       [&](int k) {
         return std::make_pair(reason(row_.states[size_t(k)]),
                               row_.states[size_t(k)] == CellState::Allowed ? dim : warn);
       }},
      {tr("= x + mask"),
       [&](int k) {
         return row_.states[size_t(k)] == CellState::Allowed ? std::make_pair(num(row_.scores[size_t(k)], 2), text)
                                                             : std::make_pair(QStringLiteral("-inf"), warn);
       }},
      {row_.shift != 0 ? tr("e^(x - %1)").arg(num(row_.shift, 1)) : tr("e^x"),
       [&](int k) {
         return row_.states[size_t(k)] == CellState::Allowed ? std::make_pair(num(row_.exps[size_t(k)], 3), text)
                                                             : std::make_pair(QStringLiteral("e^-inf = 0"), warn);
       }},
      {tr("weight = e^x / sum"), [&](int k) { return std::make_pair(num(row_.weights[size_t(k)], 3), text); }},
  };
  for (const Line& l : lines) {
    label(y, l.name);
    for (int i = 0; i < count_; ++i) {
      auto [s, c] = l.f(first_ + i);
      cell(i, y, s, c, l.name.startsWith(QLatin1String("weight")));
    }
    y += lh;
  }
  // Bars: the weight with the mask (solid), without it (outline), blocked keys marked.
  const int barTop = y + 8;
  const int footerH = 3 * lh + 8;
  const int barH = std::max(40, area.bottom() - barTop - footerH - lh);
  label(barTop + barH / 2 - lh / 2, tr("weights"));
  paintBars(p, QRect(x0 + labelW, barTop, colW * std::max(1, count_), barH), colW, lh);
  y = barTop + barH + 6;
  p.setFont(base);
  p.setPen(text);
  p.drawText(QRect(x0, y, area.width() - 12, footerH), Qt::TextWordWrap, sumText());
}

void SoftmaxView::paintBars(QPainter& p, QRect bars, int colW, int lh) const {
  const QColor text = palette().text().color(), dim = palette().placeholderText().color(),
               warn = palette::warningText();
  QFont bold = font();
  bold.setBold(true);
  const int barTop = bars.top(), barH = bars.height();
  for (int i = 0; i < count_; ++i) {
    const int k = first_ + i;
    const QRect slot(bars.left() + i * colW + colW / 6, barTop, colW * 2 / 3 - 4, barH);
    const double w = row_.weights[size_t(k)], u = row_.unmasked[size_t(k)];
    p.setPen(QPen(dim, 1, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRect(slot.left(), slot.bottom() - int(u * barH), slot.width(), int(u * barH)));
    if (row_.states[size_t(k)] == CellState::Allowed || row_.fullyMasked) {
      p.fillRect(QRect(slot.left() + 3, slot.bottom() - int(w * barH), slot.width() - 6, int(w * barH)),
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

// The footer: the sum of the allowed exponentials, and what happens when every key is blocked.
QString SoftmaxView::sumText() const {
  QString sumText;
  QStringList terms;
  for (int i = 0; i < count_; ++i)
    if (row_.states[size_t(first_ + i)] == CellState::Allowed) terms << num(row_.exps[size_t(first_ + i)], 3);
  if (row_.allowed > int(terms.size())) terms << tr("(%1 more keys)").arg(row_.allowed - int(terms.size()));
  if (row_.fullyMasked)
    sumText = tr("Every key is blocked: with a true -inf the sum is 0 and 0/0 = NaN. transformers adds "
                 "finfo(dtype).min instead, "
                 "so all keys tie and the row becomes uniform (1/%1 each) - harmless only because the loss ignores "
                 "this position.")
                  .arg(row_.scores.size());
  else
    sumText = tr("sum = %1 = %2.   Each allowed key gets e^x / %2; blocked keys get e^-inf / %2 = 0 exactly, and the "
                 "survivors' weights add up to 1.")
                  .arg(terms.join(QStringLiteral(" + ")))
                  .arg(num(row_.sum, 3));
  return sumText + tr("\nDashed outline: the weights softmax would give with no mask (%1).")
                       .arg(teaching_ ? tr("0.659, 0.242, 0.099") : tr("for comparison"));
}

} // namespace maskscope
