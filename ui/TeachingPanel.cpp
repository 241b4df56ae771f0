// The teaching steps and their navigation.
#include "ui/TeachingPanel.h"
#include "ui/Session.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace maskscope {

namespace {
// First position in the selected row matching pred, else -1.
int findPosition(Session& s, const std::function<bool(const PositionMeta&, int64_t label)>& pred) {
  if (!s.hasBatch()) return -1;
  const Batch& b = s.batch();
  const int r = s.batchRow();
  if (size_t(r) >= b.meta.size()) return -1;
  for (int64_t t = 0; t < b.length() && size_t(t) < b.meta[size_t(r)].size(); ++t)
    if (pred(b.meta[size_t(r)][size_t(t)], b.labels.at(r, t))) return int(t);
  return -1;
}
} // namespace

std::vector<TeachingStep> TeachingPanel::steps() {
  return {
      {QObject::tr("1. A mask is one flag per position"),
       QObject::tr(
           "<p>A batch is four grids of the same shape: <b>input_ids</b>, <b>attention_mask</b>, <b>labels</b> and "
           "<b>position_ids</b>. Each chip in the strip is one position: its token, its role band, "
           "<b>A1</b>/<b>A0</b> (may others look at it?) and its position id.</p>"),
       QStringLiteral("default"), QStringLiteral("tokens"), [](Session&) { return 0; }},
      {QObject::tr("2. Labels and -100"),
       QObject::tr(
           "<p>The label says what the model is graded on. <b>-100</b> (dashed border) means "
           "<i>not graded</i>: PyTorch's cross-entropy skips it. With the correct set-up only the assistant's reply "
           "(thick solid border, <b>&#10003; L</b>) is graded; the prompt is context, not a target.</p>"),
       QStringLiteral("default"), QStringLiteral("tokens"),
       [](Session& s) {
         return findPosition(s, [](const PositionMeta& m, int64_t l) { return m.reply && l != kIgnoreIndex; });
       }},
      {QObject::tr("3. Grade the closing token"),
       QObject::tr(
           "<p>The token that ends the reply (<code>&lt;|im_end|&gt;</code> or EOS) must be graded, or the model "
           "never learns to stop. Setting <code>pad_token = eos_token</code> and masking every pad id masks this "
           "token too: compare this step's collator (<b>buggy-pad-is-eos</b>) with the default.</p>"),
       QStringLiteral("buggy-pad-is-eos"), QStringLiteral("tokens"),
       [](Session& s) { return findPosition(s, [](const PositionMeta& m, int64_t) { return m.closesReply; }); }},
      {QObject::tr("4. The causal mask adds -inf"),
       QObject::tr(
           "<p>Attention turns scores into weights with softmax. The mask <b>adds</b> 0 to allowed keys and "
           "<b>-inf</b> to blocked ones: e<sup>-inf</sup> = 0, so blocked keys get weight exactly 0 and the "
           "others are renormalised. Scores 2.0, 1.0, 0.1 with the third key in the future give 0.731, 0.269, 0.</p>"),
       QStringLiteral("default"), QStringLiteral("softmax"), [](Session&) { return -1; }, true},
      {QObject::tr("5. Padding must be masked"),
       QObject::tr(
           "<p>Rows of a batch are padded to one length. Pads must be <b>A0</b> (no one attends to them) and "
           "<b>-100</b> (not graded). Here <b>buggy-max-length-all-ones</b> pads to max_length with an all-ones "
           "attention mask and copied labels: the orange padding columns of the grid turn blue, and the loss is "
           "mostly about predicting pads.</p>"),
       QStringLiteral("buggy-max-length-all-ones"), QStringLiteral("attention"), [](Session&) { return -1; }},
      {QObject::tr("6. Padding side and position ids"),
       QObject::tr(
           "<p>Left padding (for generation) puts pads first. The pads must not count in the position ids: here "
           "<b>buggy-left-pad-positions</b> numbers them 0..T-1, so the first real token sits at position 5 instead "
           "of 0, unlike training.</p>"),
       QStringLiteral("buggy-left-pad-positions"), QStringLiteral("tokens"), [](Session&) { return 0; }},
      {QObject::tr("7. Packing"),
       QObject::tr("<p>Packing puts several examples in one row. Each must only see itself: the grid should show "
                   "separate triangles (dashed lines mark example boundaries, violet = another example). An all-ones "
                   "mask lets later examples attend to earlier ones - compare <b>naive-packed</b> with "
                   "<b>axolotl-packed</b>.</p>"),
       QStringLiteral("axolotl-packed"), QStringLiteral("attention"), [](Session&) { return -1; }},
      {QObject::tr("8. Loss dilution"),
       QObject::tr(
           "<p>The loss is a mean over graded tokens. Grade the prompt too (<b>hf-lm</b>: labels = input_ids) and "
           "the reply becomes a small share: 200 prompt tokens at 2.0 and 40 reply tokens at 1.0 make the reply 9 % "
           "of the loss. The loss view computes it for this row.</p>"),
       QStringLiteral("hf-lm"), QStringLiteral("loss"), [](Session&) { return -1; }},
  };
}

TeachingPanel::TeachingPanel(Session* session, std::function<void(const QString&, bool)> showView, QWidget* parent)
    : QWidget(parent), session_(session), showView_(std::move(showView)), steps_(steps()) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel(this);
  QFont big = font();
  big.setPointSizeF(big.pointSizeF() * 1.6);
  big.setBold(true);
  title_->setFont(big);
  title_->setWordWrap(true);
  text_ = new QTextBrowser(this);
  QFont body = font();
  body.setPointSizeF(body.pointSizeF() * 1.3);
  text_->setFont(body);
  auto* nav = new QHBoxLayout;
  prev_ = new QPushButton(tr("\u2190 Back"), this);
  next_ = new QPushButton(tr("Next \u2192"), this);
  counter_ = new QLabel(this);
  auto* presenter = new QPushButton(tr("Presenter mode"), this);
  presenter->setCheckable(true);
  presenter->setToolTip(tr("Large type for a projector (F11)"));
  nav->addWidget(prev_);
  nav->addWidget(counter_);
  nav->addWidget(next_);
  nav->addStretch();
  nav->addWidget(presenter);
  layout->addWidget(title_);
  layout->addWidget(text_, 1);
  layout->addLayout(nav);
  connect(prev_, &QPushButton::clicked, this, [this] { goToStep(index_ - 1); });
  connect(next_, &QPushButton::clicked, this, [this] { goToStep(index_ + 1); });
  connect(presenter, &QPushButton::toggled, this, &TeachingPanel::presenterToggled);
  title_->setText(tr("Teaching mode"));
  text_->setHtml(
      tr("<p>A guided walk through masking, driving the real views on the demo data. Press <b>Next</b>.</p>"));
  counter_->setText(tr("%1 steps").arg(steps_.size()));
}

QString TeachingPanel::currentTitle() const { return title_->text(); }

void TeachingPanel::goToStep(int index) {
  if (index < 0 || index >= int(steps_.size())) return;
  index_ = index;
  const TeachingStep& s = steps_[size_t(index)];
  title_->setText(s.title);
  text_->setHtml(s.text);
  counter_->setText(tr("%1 / %2").arg(index + 1).arg(steps_.size()));
  prev_->setEnabled(index > 0);
  next_->setEnabled(index + 1 < int(steps_.size()));
  if (session_->datasetSpec() != QLatin1String("builtin:demo")) session_->openDataset(QStringLiteral("builtin:demo"));
  session_->setCollator(s.collator);
  if (s.position) {
    const int p = s.position(*session_);
    if (p >= 0) session_->selectPosition(p);
  }
  if (showView_) showView_(s.view, s.softmaxExample);
}

} // namespace maskscope
