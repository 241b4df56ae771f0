// The softmax view with a model (issue 33): its scores are the engine's captured pre-softmax scores
// (before the mask), so their softmax with the mask reproduces the captured attention weights to 1e-5
// and without the mask differs wherever a key is masked; through the app's own path (builtin:tiny loaded
// by the model controller) and the snapshot path (`snapshot --view softmax --model`), on a padded and a
// packed batch.
#include "core/forward/ModelSpec.h"
#include "core/mask/PaddingDetection.h"
#include "ui/model/ModelRunner.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/views/softmax/SoftmaxView.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace maskscope;

namespace {

std::shared_ptr<ForwardModel> tiny() {
  static std::shared_ptr<ForwardModel> m = loadForwardModel(kBuiltinTinyModel, "cpu");
  return m;
}

// Selects the first dataset row whose batch row has a padding position or a second packed example
// (keys masked beyond the causal ones); false when none has.
bool selectRowWithMaskedKeys(Session& s) {
  for (int r = 0; r < s.rowCount(); ++r) {
    s.selectRow(r);
    const Batch& b = s.batch();
    const int row = s.batchRow();
    const std::vector<uint8_t> pads = paddingOfRow(b, row);
    if (std::find(pads.begin(), pads.end(), 1) != pads.end()) return true;
    if (b.attentionMask.sameShape(b.inputIds))
      for (int64_t t = 0; t < b.length(); ++t)
        if (b.attentionMask.at(row, t) > 1) return true;
  }
  return false;
}

struct Gaps {
  double weights = 0;         // max |view weight - captured probability| over every query and key
  double scores = 0;          // max |view score - captured score|
  double leastUnmasked = 1e9; // over queries with a blocked key: the least max |unmasked - weight|
  double mostUnmasked = 0;    // and the largest
  int queriesWithBlockedKeys = 0;
};

// Every query of the session's row, the view's numbers against one direct run of the same model.
Gaps compareEveryQuery(Session& s, const SoftmaxView& v, const ModelRun& run) {
  Gaps g;
  const int64_t T = s.batch().length();
  const std::vector<float> probs = rowAttention(run, s.batchRow(), T), scores = rowScores(run, s.batchRow(), T);
  if (probs.size() != size_t(T * T) || scores.size() != size_t(T * T)) return {1e9, 1e9, 0, 0, 0};
  for (int64_t q = 0; q < T; ++q) {
    s.selectPosition(int(q));
    const SoftmaxRow& row = v.current();
    double unmaskedGap = 0;
    for (int64_t k = 0; k < T; ++k) {
      g.weights = std::max(g.weights, std::abs(row.weights[size_t(k)] - double(probs[size_t(q * T + k)])));
      g.scores = std::max(g.scores, std::abs(row.scores[size_t(k)] - double(scores[size_t(q * T + k)])));
      unmaskedGap = std::max(unmaskedGap, std::abs(row.unmasked[size_t(k)] - row.weights[size_t(k)]));
    }
    if (row.allowed < int(T)) {
      ++g.queriesWithBlockedKeys;
      g.leastUnmasked = std::min(g.leastUnmasked, unmaskedGap);
      g.mostUnmasked = std::max(g.mostUnmasked, unmaskedGap);
    }
  }
  return g;
}

} // namespace

class TestSoftmaxModel : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void viewReproducesTheCapturedWeights_data() {
    QTest::addColumn<QString>("collator");
    QTest::newRow("padded") << QStringLiteral("default");
    QTest::newRow("packed") << QStringLiteral("axolotl-packed");
  }
  // The app: the model controller runs builtin:tiny and hands the view its scores.
  void viewReproducesTheCapturedWeights() {
    QFETCH(QString, collator);
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), collator));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QVERIFY(selectRowWithMaskedKeys(s));
    MainWindow w(&s);
    SoftmaxView* v = w.softmaxView();
    v->showSelectedRow();
    QVERIFY(v->illustrativeScores());
    s.setModelSpec(QString::fromLatin1(kBuiltinTinyModel));
    QTRY_VERIFY_WITH_TIMEOUT(!v->illustrativeScores(), 120000);
    QVERIFY2(v->sourceText().contains(QStringLiteral("layer 0 head 0")), qPrintable(v->sourceText()));
    QVERIFY2(v->sourceText().contains(QStringLiteral("before the mask")), qPrintable(v->sourceText()));

    const ModelRun run = runModelOnce(*tiny(), s.modelBatch(), 0, 0);
    QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
    const Gaps g = compareEveryQuery(s, *v, run);
    QVERIFY2(g.scores < 1e-5, qPrintable(QStringLiteral("max |view score - captured score| = %1").arg(g.scores)));
    QVERIFY2(g.weights < 1e-5, qPrintable(QStringLiteral("max |view weight - captured weight| = %1").arg(g.weights)));
    QVERIFY(g.queriesWithBlockedKeys > 0);
    // ln(weight) as the score gave a blocked key e^-30 of the weight without the mask (a gap near 1e-13):
    // real scores give it a real share (a query whose only blocked key scores low still moves > 1e-7).
    QVERIFY2(g.leastUnmasked > 1e-7 && g.mostUnmasked > 1e-2,
             qPrintable(QStringLiteral("without the mask equals with it (gaps %1 .. %2)")
                            .arg(g.leastUnmasked)
                            .arg(g.mostUnmasked)));
  }

  // `snapshot --view softmax --model`: the registry's set-up puts the same real scores in the view, and
  // a run without captured scores leaves the view's scores illustrative (never ln of the weights).
  void snapshotShowsTheSameScores() {
    Session s;
    QVERIFY(s.setPipeline(QStringLiteral("builtin:demo"), QString(), QStringLiteral("default")));
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QVERIFY(selectRowWithMaskedKeys(s));
    const ModelRun run = runModelOnce(*tiny(), s.modelBatch(), 1, 0);
    QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
    SoftmaxView v(&s);
    ViewSnapshot options;
    options.session = &s;
    options.run = &run;
    options.modelLabel = QString::fromLatin1(kBuiltinTinyModel);
    softmaxViewSpec().setUp(&v, options);
    QVERIFY(!v.illustrativeScores());
    const Gaps g = compareEveryQuery(s, v, run);
    QVERIFY(g.scores < 1e-5 && g.weights < 1e-5);
    QVERIFY(g.queriesWithBlockedKeys > 0 && g.leastUnmasked > 1e-7 && g.mostUnmasked > 1e-2);

    ModelRun noScores = run;
    for (CapturedAttention& a : noScores.output.attention) a.scores.clear();
    SoftmaxView bare(&s);
    options.run = &noScores;
    softmaxViewSpec().setUp(&bare, options);
    QVERIFY(bare.illustrativeScores());
    QVERIFY2(bare.scoresNote().contains(QStringLiteral("not captured")), qPrintable(bare.scoresNote()));
  }
};

QTEST_MAIN(TestSoftmaxModel)
#include "tst_softmax_model.moc"
