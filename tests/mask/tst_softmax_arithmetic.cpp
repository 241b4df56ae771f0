// The softmax view's arithmetic (core/mask/SoftmaxArithmetic) against values computed by hand
// (e^2.0 = 7.389056, e^1.0 = 2.718282, e^0.1 = 1.105171), to a stated tolerance of 1e-6.
#include "core/mask/SoftmaxArithmetic.h"

#include <QTest>
#include <cmath>

using namespace maskscope;

namespace {
constexpr double kTolerance = 1e-6; // the hand values carry 6-7 significant digits
using States = std::vector<CellState>;
using Values = std::vector<double>;
constexpr CellState A = CellState::Allowed, F = CellState::Future, P = CellState::Padding, W = CellState::OutsideWindow;
} // namespace

Q_DECLARE_METATYPE(std::vector<double>)
Q_DECLARE_METATYPE(std::vector<CellState>)
Q_DECLARE_METATYPE(std::vector<uint8_t>)

class TestSoftmaxArithmetic : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void rowsMatchHandValues_data() {
    QTest::addColumn<Values>("scores");
    QTest::addColumn<States>("states");
    QTest::addColumn<Values>("exps");
    QTest::addColumn<double>("sum");
    QTest::addColumn<Values>("weights");
    // 7.389056 + 2.718282 + 1.105171 = 11.212509; 7.389056 / 11.212509 = 0.659001 ...
    QTest::newRow("unmasked 2.0 1.0 0.1")
        << Values{2.0, 1.0, 0.1} << States{A, A, A} << Values{7.389056, 2.718282, 1.105171} << 11.212509
        << Values{0.659001, 0.242433, 0.098566};
    // The future key is blocked: 7.389056 + 2.718282 = 10.107338 -> 0.731059, 0.268941, 0.
    QTest::newRow("masked future key") << Values{2.0, 1.0, 0.1} << States{A, A, F} << Values{7.389056, 2.718282, 0.0}
                                       << 10.107338 << Values{0.731059, 0.268941, 0.0};
    // Two equal open keys and two blocked pads: one half each.
    QTest::newRow("pads blocked") << Values{1.0, 1.0, 5.0, 5.0} << States{A, A, P, P}
                                  << Values{2.718282, 2.718282, 0.0, 0.0} << 5.436564 << Values{0.5, 0.5, 0.0, 0.0};
    // Every key blocked: each entry is -3.4e38 in float32, shifted by itself: e^0 = 1, uniform.
    QTest::newRow("fully masked is uniform, not NaN")
        << Values{1.0, 3.0} << States{P, P} << Values{1.0, 1.0} << 2.0 << Values{0.5, 0.5};
  }
  void rowsMatchHandValues() {
    QFETCH(Values, scores);
    QFETCH(States, states);
    QFETCH(Values, exps);
    QFETCH(double, sum);
    QFETCH(Values, weights);
    const SoftmaxRow r = computeSoftmaxRow(scores, states);
    QCOMPARE(r.exps.size(), exps.size());
    for (size_t k = 0; k < exps.size(); ++k) {
      QVERIFY2(std::abs(r.exps[k] - exps[k]) < kTolerance, qPrintable(QString::number(r.exps[k], 'g', 10)));
      QVERIFY2(std::abs(r.weights[k] - weights[k]) < kTolerance, qPrintable(QString::number(r.weights[k], 'g', 10)));
      if (weights[k] == 0.0) QCOMPARE(r.weights[k], 0.0); // blocked keys are exactly 0, not tiny
      QVERIFY(!std::isnan(r.weights[k]));
    }
    QVERIFY(std::abs(r.sum - sum) < kTolerance);
  }

  // Soft-capping (Gemma 2): c = cap * tanh(x / cap) first, then the mask, then softmax. Hand values
  // from Python's math module: tanh(2) = 0.964028, tanh(1) = 0.761594; 5 tanh(0.4) = 1.899745 ...
  void softcapMatchesHandValues_data() {
    QTest::addColumn<Values>("scores");
    QTest::addColumn<States>("states");
    QTest::addColumn<double>("cap");
    QTest::addColumn<Values>("capped");
    QTest::addColumn<Values>("weights");
    QTest::newRow("cap 1, future key blocked")
        << Values{2.0, 1.0, 0.1} << States{A, A, F} << 1.0 << Values{0.964028, 0.761594, 0.099668}
        << Values{0.550436, 0.449564, 0.0};
    QTest::newRow("cap 5, oldest key outside the window")
        << Values{2.0, 1.0, 0.1} << States{W, A, A} << 5.0 << Values{1.899745, 0.986877, 0.099987}
        << Values{0.0, 0.708248, 0.291752};
  }
  void softcapMatchesHandValues() {
    QFETCH(Values, scores);
    QFETCH(States, states);
    QFETCH(double, cap);
    QFETCH(Values, capped);
    QFETCH(Values, weights);
    const SoftmaxRow r = computeSoftmaxRow(scores, states, cap);
    QCOMPARE(r.softcap, cap);
    QCOMPARE(r.capped.size(), capped.size());
    for (size_t k = 0; k < capped.size(); ++k) {
      QVERIFY2(std::abs(r.capped[k] - capped[k]) < kTolerance, qPrintable(QString::number(r.capped[k], 'g', 10)));
      QVERIFY2(std::abs(r.weights[k] - weights[k]) < kTolerance, qPrintable(QString::number(r.weights[k], 'g', 10)));
      if (weights[k] == 0.0) QCOMPARE(r.weights[k], 0.0);
    }
    // Without a cap nothing is capped and the weights differ.
    const SoftmaxRow plain = computeSoftmaxRow(scores, states);
    QVERIFY(plain.capped.empty());
    QVERIFY(std::abs(plain.weights[1] - r.weights[1]) > 1e-3);
  }

  void maskValueIsFloat32Lowest() {
    // torch.finfo(torch.float32).min, printed by PyTorch as -3.4028234663852886e+38.
    QCOMPARE(float32MaskValue(), -3.4028234663852886e38);
    const SoftmaxRow r = computeSoftmaxRow({2.0, 1.0, 0.1}, {A, A, F});
    QCOMPARE(r.maskValue, float32MaskValue());
    QCOMPARE(r.masked[2], float32MaskValue()); // 0.1 + (-3.4e38) rounds to -3.4e38 in float32
    QCOMPARE(r.masked[0], 2.0);
    QCOMPARE(r.allowed, 2);
    QVERIFY(!r.fullyMasked);
  }

  void unmaskedWeightsForComparison() {
    const SoftmaxRow r = computeSoftmaxRow({2.0, 1.0, 0.1}, {A, A, F});
    QVERIFY(std::abs(r.unmasked[0] - 0.659001) < kTolerance);
    QVERIFY(std::abs(r.unmasked[2] - 0.098566) < kTolerance);
    // The unmasked row worked through: 7.389056 + 2.718282 + 1.105171 = 11.212509.
    QVERIFY(std::abs(r.unmaskedExps[2] - 1.105171) < kTolerance);
    QVERIFY(std::abs(r.unmaskedSum - 11.212509) < kTolerance);
  }

  void largeScoresAreShifted() {
    // e^1000 overflows a double; the row is shifted by its maximum and the weights stay exact.
    const SoftmaxRow r = computeSoftmaxRow({1000.0, 999.0}, {A, A});
    QCOMPARE(r.shift, 1000.0);
    QVERIFY(std::abs(r.weights[0] - 0.731059) < kTolerance);
  }

  void shareOfPads_data() {
    QTest::addColumn<Values>("scores");
    QTest::addColumn<States>("states");
    QTest::addColumn<std::vector<uint8_t>>("pads");
    QTest::addColumn<double>("share");
    // An all-ones mask leaves two pads open: with equal scores they take 2 of 4 shares.
    QTest::newRow("open pads take half") << Values{1.0, 1.0, 1.0, 1.0} << States{A, A, A, A}
                                         << std::vector<uint8_t>{0, 0, 1, 1} << 0.5;
    // The same pads blocked by a correct mask take nothing.
    QTest::newRow("blocked pads take nothing")
        << Values{1.0, 1.0, 1.0, 1.0} << States{A, A, P, P} << std::vector<uint8_t>{0, 0, 1, 1} << 0.0;
    // One open pad with score 2.0 against keys of 1.0 and 0.1: 7.389056 / 11.212509.
    QTest::newRow("one open pad") << Values{1.0, 0.1, 2.0} << States{A, A, A} << std::vector<uint8_t>{0, 0, 1}
                                  << 0.659001;
  }
  void shareOfPads() {
    QFETCH(Values, scores);
    QFETCH(States, states);
    QFETCH(std::vector<uint8_t>, pads);
    QFETCH(double, share);
    QVERIFY(std::abs(attentionShare(computeSoftmaxRow(scores, states), pads) - share) < kTolerance);
  }
};

QTEST_APPLESS_MAIN(TestSoftmaxArithmetic)
#include "tst_softmax_arithmetic.moc"
