// The BERT aside (core/mask/MaskedLm.h): BERT's masking drawn on the real tokens of a row only, its
// 80/10/10 rule, the labels it writes and the bidirectional mask. Each count is checked against the
// batch it comes from: another batch (more padding, more text) must give the count that batch implies.
#include "core/batchio/BatchLoader.h"
#include "core/mask/CellClass.h"
#include "core/mask/MaskedLm.h"
#include "core/mask/PaddingDetection.h"
#include "core/util/Error.h"

#include <QtTest>
#include <cmath>

using namespace maskscope;

namespace {

Batch fixture(const char* name) { return loadBatchDump(std::string(MASKSCOPE_TEST_DATA_DIR) + "/mask/mlm/" + name); }

MaskedLmOptions options(uint64_t seed = 0) {
  MaskedLmOptions o;
  o.seed = seed;
  o.maskTokenId = 103; // BERT's [MASK]
  o.vocabSize = 30522;
  return o;
}

} // namespace

class TestMaskedLm : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void countsFollowTheRealTokens_data();
  void countsFollowTheRealTokens();
  void onlyChosenPositionsAreLabelled();
  void seeded();
  void eightyTenTen();
  void bidirectionalMask();
  void refusesBadInput();
};

// The expected numbers are derived from the fixture's shape (tools/mlm-fixtures): real tokens = BOS +
// text + EOS, candidates = the text alone, masked = round(0.15 * candidates); pads never count.
void TestMaskedLm::countsFollowTheRealTokens_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("row");
  QTest::addColumn<int>("positions");
  QTest::addColumn<int>("real");
  QTest::addColumn<int>("masked");
  QTest::newRow("row 0: 42 real, 20 pads") << "two_rows.json" << 0 << 62 << 42 << 6; // 0.15 * 40
  QTest::newRow("row 1: 22 real, 40 pads") << "two_rows.json" << 1 << 62 << 22 << 3; // 0.15 * 20
  QTest::newRow("200 more pads: same count") << "more_padding.json" << 0 << 262 << 42 << 6;
  QTest::newRow("40 more real tokens") << "longer_row.json" << 0 << 82 << 82 << 12; // 0.15 * 80
}

void TestMaskedLm::countsFollowTheRealTokens() {
  QFETCH(QString, file);
  QFETCH(int, row);
  QFETCH(int, positions);
  QFETCH(int, real);
  QFETCH(int, masked);
  const Batch b = fixture(file.toStdString().c_str());
  const MaskedLmRow m = maskedLmRow(b, row, options());
  QCOMPARE(m.positions, int64_t(positions));
  QCOMPARE(m.real, int64_t(real));
  QCOMPARE(m.special, int64_t(2)); // BOS and EOS: never chosen, as upstream's special_tokens_mask
  QCOMPARE(m.candidates, int64_t(real - 2));
  QCOMPARE(m.masked, int64_t(masked));
  QCOMPARE(int64_t(m.maskedAt.size()), m.masked);
  QCOMPARE(m.byMask + m.byRandom + m.kept, m.masked);
  // Causal: the i-th real token sees i real tokens (itself included); bidirectional: all of them.
  QCOMPARE(m.causalPairs, int64_t(real) * (real + 1) / 2);
  QCOMPARE(m.bidirectionalPairs, int64_t(real) * real);
}

void TestMaskedLm::onlyChosenPositionsAreLabelled() {
  const Batch b = fixture("two_rows.json");
  const std::vector<uint8_t> pad = paddingOfRow(b, 0);
  const MaskedLmRow m = maskedLmRow(b, 0, options());
  int64_t labelled = 0;
  for (int64_t t = 0; t < b.length(); ++t) {
    const bool chosen = std::binary_search(m.maskedAt.begin(), m.maskedAt.end(), t);
    QCOMPARE(m.choice[size_t(t)] != MlmChoice::None, chosen);
    if (!chosen) {
      QCOMPARE(m.labels[size_t(t)], kIgnoreIndex);
      QCOMPARE(m.inputIds[size_t(t)], b.inputIds.at(0, t));
      continue;
    }
    ++labelled;
    QVERIFY2(!pad[size_t(t)], "a pad was chosen");
    QVERIFY(b.inputIds.at(0, t) >= 1000);               // text, never the BOS or EOS
    QCOMPARE(m.labels[size_t(t)], b.inputIds.at(0, t)); // the original token, at its own position
    if (m.choice[size_t(t)] == MlmChoice::Mask) QCOMPARE(m.inputIds[size_t(t)], int64_t(103));
    if (m.choice[size_t(t)] == MlmChoice::Kept) QCOMPARE(m.inputIds[size_t(t)], b.inputIds.at(0, t));
  }
  QCOMPARE(labelled, m.masked);
}

void TestMaskedLm::seeded() {
  const Batch b = fixture("longer_row.json");
  const MaskedLmRow a = maskedLmRow(b, 0, options(7)), again = maskedLmRow(b, 0, options(7));
  QCOMPARE(a.maskedAt, again.maskedAt);
  QCOMPARE(a.inputIds, again.inputIds);
  QVERIFY(maskedLmRow(b, 0, options(8)).maskedAt != a.maskedAt);
  // The same seed on the same row of another batch: the row's own padding does not move the draw.
  QCOMPARE(maskedLmRow(fixture("more_padding.json"), 0, options(0)).maskedAt,
           maskedLmRow(fixture("two_rows.json"), 0, options(0)).maskedAt);
}

// 1500 chosen of 10000: upstream's shares 0.8 / 0.1 / 0.1, each within 5 standard deviations.
void TestMaskedLm::eightyTenTen() {
  const MaskedLmRow m = maskedLmRow(fixture("long_row.json"), 0, options(3));
  QCOMPARE(m.masked, int64_t(1500));
  auto near = [&](int64_t n, double p) { return std::abs(double(n) - p * 1500) < 5 * std::sqrt(1500 * p * (1 - p)); };
  QVERIFY2(near(m.byMask, 0.8), qPrintable(QString::number(m.byMask)));
  QVERIFY2(near(m.byRandom, 0.1), qPrintable(QString::number(m.byRandom)));
  QVERIFY2(near(m.kept, 0.1), qPrintable(QString::number(m.kept)));
  for (int64_t t : m.maskedAt)
    if (m.choice[size_t(t)] == MlmChoice::Random) QVERIFY(m.inputIds[size_t(t)] >= 0 && m.inputIds[size_t(t)] < 30522);
}

// Every real token sees every real token, later ones too; pad keys stay hidden; no cell reads "future".
void TestMaskedLm::bidirectionalMask() {
  const Batch b = fixture("two_rows.json");
  const EffectiveMask mask = ::maskscope::bidirectionalMask(b);
  QVERIFY(mask.bidirectional);
  const AttentionGrid g = mask.grid(1);
  int64_t allowed = 0;
  for (int64_t q = 0; q < g.size; ++q)
    for (int64_t k = 0; k < g.size; ++k) {
      const CellState s = g.at(q, k);
      QVERIFY(s != CellState::Future);
      QCOMPARE(s == CellState::Allowed, k < 22);
      allowed += q < 22 && s == CellState::Allowed;
    }
  QCOMPARE(allowed, maskedLmRow(b, 1, options()).bidirectionalPairs);
  const RowAnatomy a = rowAnatomy(b, 1, mask);
  QCOMPARE(a.classify(0, 21), CellClass::Allowed); // the first token sees the last
  QCOMPARE(a.classify(0, 30), CellClass::Padding);
  QVERIFY_THROWS_EXCEPTION(Error, mask.segmentIdMask()); // no causal model runs it
}

void TestMaskedLm::refusesBadInput() {
  const Batch b = fixture("two_rows.json");
  QVERIFY_THROWS_EXCEPTION(Error, maskedLmRow(b, 2, options()));
  MaskedLmOptions o = options();
  o.probability = 0;
  QVERIFY_THROWS_EXCEPTION(Error, maskedLmRow(b, 0, o));
  o.probability = std::nan("");
  QVERIFY_THROWS_EXCEPTION(Error, maskedLmRow(b, 0, o));
}

QTEST_GUILESS_MAIN(TestMaskedLm)
#include "tst_masked_lm.moc"
