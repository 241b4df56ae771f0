// The teaching steps. Rule for the texts: "position N" always names the selected position (the
// chip the strip highlights), and every count comes from the selected row of the current batch.
#include "ui/teaching/TeachingSteps.h"
#include "core/collate/CollatorSpec.h"
#include "core/mask/CellClass.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/RowFacts.h"
#include "core/mask/SoftmaxArithmetic.h"
#include "core/util/Utf8.h"
#include "ui/shell/Session.h"
#include "ui/teaching/ExposureText.h"
#include "ui/teaching/LessonTexts.h"
#include "ui/widgets/Palette.h"

#include <QObject>
#include <cmath>

namespace maskscope {

namespace {
QString tr(const char* s) { return QObject::tr(s); }

// The facts of the selected row the texts quote: core's rowFacts (one padding rule, graded = reaches
// the loss, t >= 1), the counts the summary line, lint and the loss view show.
struct StepFacts {
  int length = 0, attended = 0, graded = 0, pads = 0, gradedPads = 0, openPads = 0;
  int gradedReply = 0, gradedPrompt = 0;
  double padShareOfGraded = 0; // gradedShare: the loss view's pad share of the graded positions
};

StepFacts factsOf(const Session& s) {
  StepFacts f;
  if (!s.hasBatch()) return f;
  const Batch& b = s.batch();
  const int r = s.batchRow();
  const RowFacts rf = rowFacts(b, r);
  f.length = int(rf.positions);
  for (int64_t t = 0; t < b.length(); ++t)
    f.attended += !b.attentionMask.sameShape(b.inputIds) || b.attentionMask.at(r, t) != 0 ? 1 : 0;
  f.graded = int(rf.gradedTotal());
  f.pads = int(rf.pads);
  f.gradedPads = int(rf.graded[RolePad]);
  f.openPads = int(rf.attendedPads);
  f.gradedReply = int(rf.graded[RoleReply]);
  f.gradedPrompt = int(rf.graded[RolePrompt]);
  f.padShareOfGraded = rf.gradedShareOf(RolePad);
  return f;
}

// A colour as the views paint it: a swatch and its everyday name (both from the palette).
QString swatch(const QColor& c, const QColor& stripe = QColor()) {
  QString name = palette::colourWord(c);
  if (stripe.isValid()) name += QObject::tr(" hatched with %1").arg(palette::colourWord(stripe));
  return QStringLiteral("<span style=\"background-color:%1;color:%2\">&nbsp;%3&nbsp;</span> %4")
      .arg(c.name(), stripe.isValid() ? stripe.name() : c.name(), stripe.isValid() ? QStringLiteral("////") : QString(),
           name);
}

// First position in the selected row matching pred, else -1.
int findPosition(const Session& s, const std::function<bool(const Batch&, int, int64_t)>& pred) {
  if (!s.hasBatch()) return -1;
  const Batch& b = s.batch();
  for (int64_t t = 0; t < b.length(); ++t)
    if (pred(b, s.batchRow(), t)) return int(t);
  return -1;
}
const PositionMeta* metaAt(const Batch& b, int r, int64_t t) {
  if (size_t(r) >= b.meta.size() || size_t(t) >= b.meta[size_t(r)].size()) return nullptr;
  return &b.meta[size_t(r)][size_t(t)];
}
int64_t positionIdAt(const Batch& b, int r, int64_t t) { return b.positionIds.empty() ? t : b.positionIds.at(r, t); }
QString tokenAt(const Session& s, int64_t t) {
  const QString text = s.tokenText(s.batch().inputIds.at(s.batchRow(), t));
  return QString::fromStdString(utf8::visibleWhitespace(text.toStdString())).toHtmlEscaped();
}
QString percent(double share) {
  return std::isnan(share) ? QStringLiteral("-") : QString::number(100.0 * share, 'f', 1) + QStringLiteral(" %");
}

TeachingStep flagsStep() {
  return {tr("1. A mask is one flag per position"),
          [](const Session& s) -> QString {
            const StepFacts f = factsOf(s);
            return tr("<p>A batch is four grids of the same shape: <b>input_ids</b>, <b>attention_mask</b>, "
                      "<b>labels</b> and <b>position_ids</b>. Each chip in the strip is one position: its token, its "
                      "role band, <b>A1</b>/<b>A0</b> (may others look at it?) and its position id.</p><p>This row "
                      "has %1 positions: %2 with attention_mask 1 and %3 graded.</p>")
                .arg(f.length)
                .arg(f.attended)
                .arg(f.graded);
          },
          QStringLiteral("default"), QStringLiteral("tokens"), [](const Session&) { return 0; }};
}

TeachingStep labelsStep() {
  return {tr("2. Labels and -100"),
          [](const Session& s) -> QString {
            const StepFacts f = factsOf(s);
            const int p = s.selectedPosition();
            QString here;
            if (p >= 0)
              here = tr("<p>Here %1 of %2 positions are graded; the first, position %3 (<code>%4</code>), has label "
                        "%5.</p>")
                         .arg(f.graded)
                         .arg(f.length)
                         .arg(p)
                         .arg(tokenAt(s, p))
                         .arg(s.batch().labels.at(s.batchRow(), p));
            return tr("<p>The label says what the model is graded on. <b>-100</b> (dashed border) means <i>not "
                      "graded</i>: PyTorch's cross-entropy skips it. With the correct set-up only the assistant's "
                      "reply (thick solid border, <b>&#10003; L</b>) is graded; the prompt is context, not a "
                      "target.</p>") +
                   here + measuredLessonsText(s);
          },
          QStringLiteral("default"),
          QStringLiteral("tokens"),
          [](const Session& s) {
            return findPosition(s, [](const Batch& b, int r, int64_t t) {
              const PositionMeta* m = metaAt(b, r, t);
              return m && m->reply && gradedAt(b, r, t);
            });
          },
          false,
          true};
}

TeachingStep closingStep() {
  return {tr("3. Grade the closing token"),
          [](const Session& s) -> QString {
            const int p = s.selectedPosition();
            QString here;
            if (p >= 0) {
              const int64_t label = s.batch().labels.at(s.batchRow(), p);
              const bool graded = gradedAt(s.batch(), s.batchRow(), p); // reaches the loss (RowFacts.h)
              here = graded ? tr("<p>Position %1 (<code>%2</code>) closes the reply and is graded here (label %3).</p>")
                            : tr("<p>Position %1 (<code>%2</code>) closes the reply and has label -100 here: it is "
                                 "<b>not graded</b>.</p>");
              here = here.arg(p).arg(tokenAt(s, p));
              if (graded) here = here.arg(label);
            }
            return tr("<p>The token that ends the reply (<code>&lt;|im_end|&gt;</code> or EOS) must be graded, or "
                      "the model never learns to stop. Setting <code>pad_token = eos_token</code> and masking every "
                      "pad id masks this token too: compare this step's collator (<b>buggy-pad-is-eos</b>) with the "
                      "default.</p>") +
                   here;
          },
          QStringLiteral("buggy-pad-is-eos"), QStringLiteral("tokens"),
          [](const Session& s) {
            return findPosition(s, [](const Batch& b, int r, int64_t t) {
              const PositionMeta* m = metaAt(b, r, t);
              return m && m->closesReply;
            });
          }};
}

TeachingStep causalStep() {
  return {tr("4. The causal mask blocks the future"),
          [](const Session&) -> QString {
            const SoftmaxRow r =
                computeSoftmaxRow({2.0, 1.0, 0.1}, {CellState::Allowed, CellState::Allowed, CellState::Future});
            return tr("<p>Attention turns scores into weights with softmax. The mask <b>adds</b> 0 to allowed keys "
                      "and a huge negative number (%1, float32's most negative) to blocked ones: their e<sup>x</sup> "
                      "underflows to 0, so they get weight exactly 0 and the others are renormalised. Scores 2.0, "
                      "1.0, 0.1 with the third key in the future give %2, %3, %4 (without the mask: %5, %6, %7).</p>")
                .arg(QString::number(r.maskValue, 'g', 5).replace(QLatin1String("e+"), QLatin1String("e")))
                .arg(r.weights[0], 0, 'f', 3)
                .arg(r.weights[1], 0, 'f', 3)
                .arg(r.weights[2], 0, 'f', 0)
                .arg(r.unmasked[0], 0, 'f', 3)
                .arg(r.unmasked[1], 0, 'f', 3)
                .arg(r.unmasked[2], 0, 'f', 3);
          },
          QStringLiteral("default"),
          QStringLiteral("softmax"),
          [](const Session&) { return -1; },
          true};
}

TeachingStep teacherForcingStep() {
  return {tr("5. Teacher forcing: one pass grades every position"),
          [](const Session& s) -> QString {
            const StepFacts f = factsOf(s);
            const int p = s.selectedPosition();
            QString here;
            if (p >= 0 && p + 1 < f.length)
              here = tr("<p>At position %1 (<code>%2</code>) the model has read the true tokens up to here and "
                        "predicts the next one, <code>%3</code>, which the labels grade. Its own guess is never fed "
                        "back in.</p>")
                         .arg(p)
                         .arg(tokenAt(s, p))
                         .arg(tokenAt(s, p + 1));
            return tr("<p>In training the model sees the <b>true</b> previous token at every position, not what it "
                      "would have generated (teacher forcing). With the causal mask no position can peek at its "
                      "answer, so <b>one forward pass</b> over the %1 positions of this row computes all %2 graded "
                      "predictions at once.</p>")
                       .arg(f.length)
                       .arg(f.graded) +
                   here + exposureBiasText(s);
          },
          QStringLiteral("default"), QStringLiteral("tokens"),
          [](const Session& s) {
            // The first position whose prediction (the next position's label) is graded.
            return findPosition(s, [](const Batch& b, int r, int64_t t) { return gradedAt(b, r, t + 1); });
          }};
}

TeachingStep paddingStep() {
  return {tr("6. Padding must be masked"),
          [](const Session& s) -> QString {
            const StepFacts f = factsOf(s);
            // The colours are the grid's own (ui/widgets/Palette), named from them.
            const QString blocked = swatch(palette::cellClassColour(CellClass::Padding));
            const QString open = swatch(palette::cellClassColour(CellClass::AllowedPad),
                                        palette::cellClassStripe(CellClass::AllowedPad));
            return tr("<p>Rows of a batch are padded to one length. Pads must be <b>A0</b> (no one attends to "
                      "them) and <b>-100</b> (not graded). Here <b>buggy-max-length-all-ones</b> pads to max_length "
                      "with an all-ones attention mask and copied labels: the grid's padding columns, %1 "
                      "(<i>padding</i>, blocked) under a correct mask, become %2 (<i>allowed, but this key is "
                      "padding</i>, glyph <b>%3</b>).</p><p>This row has %4 pads among %5 positions: %6 of them are "
                      "open to attention and %7 are graded, so pads are %8 of the row's %9 graded positions (graded: "
                      "label kept at positions 1 and later, the ones that reach the loss; the loss view's pad share "
                      "of the graded positions).</p>")
                .arg(blocked, open, QString(palette::cellClassGlyph(CellClass::AllowedPad)))
                .arg(f.pads)
                .arg(f.length)
                .arg(f.openPads)
                .arg(f.gradedPads)
                .arg(percent(f.padShareOfGraded))
                .arg(f.graded);
          },
          QStringLiteral("buggy-max-length-all-ones"), QStringLiteral("attention"), [](const Session&) { return -1; }};
}

TeachingStep positionIdsStep() {
  return {tr("7. Padding side and position ids"),
          [](const Session& s) -> QString {
            const int p = s.selectedPosition();
            QString here;
            if (p >= 0) {
              const int64_t id = positionIdAt(s.batch(), s.batchRow(), p);
              here = tr("<p>Here the first real token, position %1 (<code>%2</code>), gets position id %3%4.</p>")
                         .arg(p)
                         .arg(tokenAt(s, p))
                         .arg(id)
                         .arg(id == 0 ? tr(", as in training") : tr(" instead of 0, unlike training"));
            }
            return tr("<p>Left padding (for generation) puts pads first. The pads must not count in the position "
                      "ids: <b>buggy-left-pad-positions</b> numbers all T positions from 0, pads included.</p>") +
                   here;
          },
          QStringLiteral("buggy-left-pad-positions"), QStringLiteral("tokens"),
          [](const Session& s) {
            if (!s.hasBatch()) return -1;
            const std::vector<uint8_t> pads = paddingOfRow(s.batch(), s.batchRow());
            return findPosition(
                s, [&pads](const Batch&, int, int64_t t) { return size_t(t) < pads.size() && !pads[size_t(t)]; });
          }};
}

TeachingStep packingStep() {
  return {tr("8. Packing"),
          [](const Session& s) -> QString {
            const size_t r = size_t(s.batchRow());
            const size_t examples = s.hasBatch() && r < s.batch().segments.size() ? s.batch().segments[r].size() : 0;
            return tr("<p>Packing puts several examples in one row; this row holds %1. Each must only see itself: "
                      "the grid should show separate triangles (dashed lines mark example boundaries, %2 = another "
                      "example's key, blocked). An all-ones mask lets later examples attend to earlier ones (%3: "
                      "<i>allowed, but this key belongs to another example</i>) - compare <b>naive-packed</b> with "
                      "<b>axolotl-packed</b>.</p>")
                .arg(std::max<size_t>(examples, 1))
                .arg(swatch(palette::cellClassColour(CellClass::OtherExample)),
                     swatch(palette::cellClassColour(CellClass::AllowedOtherExample),
                            palette::cellClassStripe(CellClass::AllowedOtherExample)));
          },
          QStringLiteral("axolotl-packed"), QStringLiteral("attention"), [](const Session&) { return -1; }};
}

TeachingStep dilutionStep() {
  return {
      tr("9. Loss dilution"),
      [](const Session& s) -> QString {
        const StepFacts f = factsOf(s);
        const int all = f.gradedPrompt + f.gradedReply;
        const double even = all ? double(f.gradedReply) / all : 0.0;
        // Prompt tokens are harder to predict: at twice the per-token loss the reply's share shrinks further.
        const double harder = all ? double(f.gradedReply) / (2.0 * f.gradedPrompt + f.gradedReply) : 0.0;
        return tr("<p>The loss is a mean over graded tokens. Grade the prompt too (<b>hf-lm</b>: labels = "
                  "input_ids) and the reply is no longer the whole loss. This row grades %1 prompt tokens besides "
                  "its %2 reply tokens: at equal per-token loss the reply is %3 of the loss instead of 100 %; at "
                  "2.0 per prompt token and 1.0 per reply token it is %4. The longer the prompt, the smaller the "
                  "reply's share. The loss view shows it for this row: from the model once one is loaded, else from "
                  "its example per-token losses.</p>")
            .arg(f.gradedPrompt)
            .arg(f.gradedReply)
            .arg(percent(even))
            .arg(percent(harder));
      },
      QStringLiteral("hf-lm"), QStringLiteral("loss"),
      // The strip on the prompt this collator grades (not on the position an earlier step left selected: the
      // left-padded row's first real token is a pad here, and the strip would show nothing but pads).
      [](const Session& s) {
        return findPosition(s, [](const Batch& b, int r, int64_t t) {
          const PositionMeta* m = metaAt(b, r, t);
          return m && !m->reply && m->kind != PositionKind::Padding && gradedAt(b, r, t);
        });
      }};
}

// The BERT aside, computed on the row on screen (core/mask/MaskedLm.h through the session): the strip
// shows BERT's input and labels, the grid its bidirectional mask, and the text quotes both.
TeachingStep bertStep() {
  return {tr("10. Aside: BERT's mask"),
          [](const Session& s) -> QString {
            const StepFacts f = factsOf(s);
            const MaskedLmRow* m = s.maskedLm();
            if (!m) return tr("<p>BERT's masking needs a row on screen.</p>");
            const QString mask = swatch(palette::maskedLmChip());
            return tr("<p>\"Mask\" has a fourth meaning. So far: the <b>attention mask</b> (A0: no one looks at "
                      "this position; %1 of %2 here are A1), the <b>causal mask</b> (no one looks ahead) and the "
                      "<b>label mask</b> (-100: not graded). BERT's masked language modelling hides tokens <b>in "
                      "the input</b>. The strip shows this row as BERT would get it: of its %3 real tokens (its %4 "
                      "pads never count, nor its %5 special tokens) %6 are drawn, 15 % of %7 (seed 0): %8 became "
                      "<code>[MASK]</code> (%9), %10 a random token and %11 stayed (BERT's 80/10/10 rule). Its labels "
                      "are -100 at the other %12 positions and the original token at the %6 drawn ones (&#10003; "
                      "L): the token is hidden from the model, not from the loss - the opposite of -100.</p>"
                      "<p>And BERT reads both ways: the grid has no causal triangle, every real token sees every "
                      "real token, %13 (query, key) pairs instead of the causal mask's %14; pads are still hidden. A "
                      "causal model predicts the <i>next</i> token, so it must not see it; BERT predicts a hidden "
                      "token from both sides. Causal fine-tuning, which the other steps show, never hides input "
                      "tokens.</p>")
                .arg(f.attended)
                .arg(f.length)
                .arg(m->real)
                .arg(f.pads)
                .arg(m->special)
                .arg(m->masked)
                .arg(m->candidates)
                .arg(m->byMask)
                .arg(mask)
                .arg(m->byRandom)
                .arg(m->kept)
                .arg(m->positions - m->masked)
                .arg(m->bidirectionalPairs)
                .arg(m->causalPairs);
          },
          QStringLiteral("default"),
          QStringLiteral("attention"),
          [](const Session& s) {
            const MaskedLmRow* m = s.maskedLm();
            for (int64_t t : m ? m->maskedAt : std::vector<int64_t>())
              if (m->choice[size_t(t)] == MlmChoice::Mask) return int(t);
            return -1;
          },
          false,
          false,
          true};
}
// Links the lesson to its consequence: the Training lab opens with the stop-token experiment selected.
TeachingStep trainStep() {
  return {tr("11. Train it and see"),
          [](const Session& s) -> QString {
            const int p = s.selectedPosition();
            QString here;
            if (p >= 0)
              here = tr("In this row it is position %1 (<code>%2</code>), label %3. ")
                         .arg(p)
                         .arg(tokenAt(s, p))
                         .arg(s.batch().labels.at(s.batchRow(), p));
            return tr("<p><b>Train it and see.</b> The Training lab beside this panel trains builtin:tiny twice "
                      "on the demo data, from the same weights on the same batches: run A with "
                      "<b>buggy-pad-is-eos</b>, which masks the token that closes every reply. ") +
                   here +
                   tr("Run B uses the correct collator.</p><p>Press <b>Start</b>. Compare the training-loss "
                      "curves (each as its own collator grades) with the held-out ones, then read the generations: run "
                      "B's replies end with the end-of-turn "
                      "token, run A's run on to the length limit - it was never graded on stopping. "
                      "<code>stop_fraction</code> counts it for each run.</p>");
          },
          QStringLiteral("buggy-pad-is-eos"), QStringLiteral("lab"),
          [](const Session& s) {
            return findPosition(s, [](const Batch& b, int r, int64_t t) {
              const PositionMeta* m = metaAt(b, r, t);
              return m && m->closesReply;
            });
          }};
}
} // namespace

std::vector<TeachingStep> teachingSteps() {
  return {flagsStep(),       labelsStep(),  closingStep(),  causalStep(), teacherForcingStep(), paddingStep(),
          positionIdsStep(), packingStep(), dilutionStep(), bertStep(),   trainStep()};
}

bool stepShowsBug(const TeachingStep& step) {
  const std::string name = step.collator.toStdString();
  for (const CollatorPreset& p : collatorPresets())
    if (p.name == name) return p.buggy;
  return false;
}

} // namespace maskscope
