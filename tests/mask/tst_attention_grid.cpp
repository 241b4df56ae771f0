// The attention a model applies, derived from hand-made batches: right, left and no padding,
// packing with segment ids, reset positions read eagerly (attend across) and as varlen (do not),
// segment recovery for dumps, and per-position flags.
#include "core/mask/AttentionGrid.h"
#include "core/mask/PackedSegments.h"
#include "core/mask/PositionFlags.h"

#include <QtTest>

using namespace maskscope;

using Ids = std::vector<int64_t>;

namespace {

// One-row batch of length T = mask.size(); ids 10, 11, ... and pad 0 where mask is 0.
Batch row(Ids mask, Ids positions = {}, Ids labels = {}) {
  Batch b;
  const int64_t T = int64_t(mask.size());
  b.inputIds = IntGrid(1, T);
  b.attentionMask = IntGrid(1, T);
  b.labels = IntGrid(1, T, kIgnoreIndex);
  for (int64_t t = 0; t < T; ++t) {
    b.inputIds.at(0, t) = mask[size_t(t)] ? 10 + t : 0;
    b.attentionMask.at(0, t) = mask[size_t(t)];
    if (!labels.empty()) b.labels.at(0, t) = labels[size_t(t)];
  }
  if (!positions.empty()) {
    b.positionIds = IntGrid(1, T);
    b.positionIds.values = positions;
  }
  b.padTokenId = 0;
  return b;
}

// The grid as rows of letters: A allowed, F future, P padding, O other example.
QStringList picture(const AttentionGrid& g) {
  QStringList out;
  for (int64_t q = 0; q < g.size; ++q) {
    QString line;
    for (int64_t k = 0; k < g.size; ++k) line += QLatin1Char("AFPO"[int(g.at(q, k))]);
    out << line;
  }
  return out;
}

} // namespace

class TestAttentionGrid : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void grids_data();
  void grids();
  void queryRowMatchesGrid();
  void badRow();
  void segmentsFromDumps_data();
  void segmentsFromDumps();
  void positionFlags();
  void effectivePositions();
};

void TestAttentionGrid::grids_data() {
  QTest::addColumn<Ids>("mask");
  QTest::addColumn<Ids>("positions");
  QTest::addColumn<bool>("varlen");
  QTest::addColumn<QStringList>("expected");
  // Causal only.
  QTest::newRow("no-padding") << Ids{1, 1, 1, 1} << Ids{} << false
                              << QStringList{QStringLiteral("AFFF"), QStringLiteral("AAFF"), QStringLiteral("AAAF"),
                                             QStringLiteral("AAAA")};
  // Right padding: no one attends the pad key; the pad query still sees the real keys (transformers
  // masks keys, not queries).
  QTest::newRow("right-padding") << Ids{1, 1, 1, 0} << Ids{} << false
                                 << QStringList{QStringLiteral("AFFF"), QStringLiteral("AAFF"), QStringLiteral("AAAF"),
                                                QStringLiteral("AAAP")};
  // Left padding: the pad queries see nothing (a fully masked row).
  QTest::newRow("left-padding") << Ids{0, 0, 1, 1} << Ids{} << false
                                << QStringList{QStringLiteral("PFFF"), QStringLiteral("PPFF"), QStringLiteral("PPAF"),
                                               QStringLiteral("PPAA")};
  // Segment ids (block diagonal), with a pad at the end.
  QTest::newRow("segment-ids") << Ids{1, 1, 2, 2, 3, 0} << Ids{0, 1, 0, 1, 0, 0} << false
                               << QStringList{QStringLiteral("AFFFFF"), QStringLiteral("AAFFFF"),
                                              QStringLiteral("OOAFFF"), QStringLiteral("OOAAFF"),
                                              QStringLiteral("OOOOAF"), QStringLiteral("AAAAAP")};
  // Positions reset but a 0/1 mask: eager/SDPA attend across examples ...
  QTest::newRow("reset-positions-eager") << Ids{1, 1, 1, 1} << Ids{0, 1, 0, 1} << false
                                         << QStringList{QStringLiteral("AFFF"), QStringLiteral("AAFF"),
                                                        QStringLiteral("AAAF"), QStringLiteral("AAAA")};
  // ... FlashAttention varlen splits where position ids are 0.
  QTest::newRow("reset-positions-varlen")
      << Ids{1, 1, 1, 1} << Ids{0, 1, 0, 1} << true
      << QStringList{QStringLiteral("AFFF"), QStringLiteral("AAFF"), QStringLiteral("OOAF"), QStringLiteral("OOAA")};
  // Naive packing (positions continue): nothing to split on, even for varlen.
  QTest::newRow("naive-varlen") << Ids{1, 1, 1, 1} << Ids{0, 1, 2, 3} << true
                                << QStringList{QStringLiteral("AFFF"), QStringLiteral("AAFF"), QStringLiteral("AAAF"),
                                               QStringLiteral("AAAA")};
  // Varlen reads segment ids too, even when position ids continue.
  QTest::newRow("segment-ids-varlen") << Ids{1, 2, 2} << Ids{0, 1, 2} << true
                                      << QStringList{QStringLiteral("AFF"), QStringLiteral("OAF"),
                                                     QStringLiteral("OAA")};
}

void TestAttentionGrid::grids() {
  QFETCH(Ids, mask);
  QFETCH(Ids, positions);
  QFETCH(bool, varlen);
  QFETCH(QStringList, expected);
  Batch b = row(mask, positions);
  AttentionGrid g = attentionGridForRow(b, 0, varlen ? MaskSemantics::Varlen : MaskSemantics::Eager);
  QCOMPARE(picture(g), expected);
  int64_t allowed = 0;
  for (const QString& line : expected) allowed += line.count(QLatin1Char('A'));
  QCOMPARE(g.allowedCount(), allowed);
}

void TestAttentionGrid::queryRowMatchesGrid() {
  Batch b = row({1, 1, 2, 2, 0}, {0, 1, 0, 1, 0});
  AttentionGrid g = attentionGridForRow(b, 0);
  for (int64_t q = 0; q < 5; ++q) {
    std::vector<CellState> r = attentionRow(b, 0, q);
    for (int64_t k = 0; k < 5; ++k) QCOMPARE(r[size_t(k)], g.at(q, k));
  }
  QCOMPARE(QString::fromLatin1(cellStateName(CellState::OtherExample)), QStringLiteral("other example"));
  QCOMPARE(QString::fromLatin1(cellStateName(CellState::Future)), QStringLiteral("future"));
}

void TestAttentionGrid::badRow() {
  Batch b = row({1, 1});
  QVERIFY_THROWS_EXCEPTION(std::exception, attentionGridForRow(b, 1));
  QVERIFY_THROWS_EXCEPTION(std::exception, attentionRow(b, 0, 2));
}

void TestAttentionGrid::segmentsFromDumps_data() {
  QTest::addColumn<Ids>("mask");
  QTest::addColumn<Ids>("positions");
  QTest::addColumn<Ids>("bounds"); // begin, end, begin, end, ...
  QTest::newRow("segment-ids") << Ids{1, 1, 2, 2, 2, 3, 0} << Ids{} << Ids{0, 2, 2, 5, 5, 6};
  QTest::newRow("padding-free-positions") << Ids{1, 1, 1, 1, 1} << Ids{0, 1, 2, 0, 1} << Ids{0, 3, 3, 5};
  QTest::newRow("reset-with-padding") << Ids{1, 1, 1, 0, 0} << Ids{0, 0, 1, 0, 0} << Ids{0, 1, 1, 3};
  QTest::newRow("single-example") << Ids{1, 1, 1, 0} << Ids{0, 1, 2, 3} << Ids{};
  QTest::newRow("naive-continues") << Ids{1, 1, 1, 1} << Ids{0, 1, 2, 3} << Ids{};
  QTest::newRow("left-padded") << Ids{0, 1, 1} << Ids{1, 0, 1} << Ids{};
}

void TestAttentionGrid::segmentsFromDumps() {
  QFETCH(Ids, mask);
  QFETCH(Ids, positions);
  QFETCH(Ids, bounds);
  Batch b = row(mask, positions);
  deriveSegments(b);
  QCOMPARE(b.segments.size(), size_t(1));
  Ids got;
  for (const Segment& s : b.segments[0]) {
    got.push_back(s.begin);
    got.push_back(s.end);
  }
  QCOMPARE(got, bounds);
}

void TestAttentionGrid::positionFlags() {
  // Right-padded row: labels on 2 and 3 (so the logits at 1 and 2 are scored), one pad.
  Batch b = row({1, 1, 1, 1, 0}, {}, {kIgnoreIndex, kIgnoreIndex, 12, 13, kIgnoreIndex});
  auto f = positionFlagsForRow(b, 0);
  QCOMPARE(f.size(), size_t(5));
  QVERIFY(f[4].padding && !f[4].attended && f[4].segment == 0);
  QVERIFY(!f[0].padding && f[0].attended && f[0].segment == 1);
  QVERIFY(f[2].graded && f[3].graded && !f[1].graded);
  QVERIFY(f[1].predicts && f[2].predicts && !f[3].predicts && !f[4].predicts);
  QCOMPARE(f[3].label, int64_t(13));
  QCOMPARE(f[4].position, int64_t(4)); // no position ids: arange, pads counted
  // All-ones dump: the trailing pad ids are still padding.
  Batch ones = row({1, 1, 1, 1, 0});
  ones.attentionMask.values = {1, 1, 1, 1, 1};
  auto g = positionFlagsForRow(ones, 0);
  QVERIFY(g[4].padding && g[4].attended);
  QVERIFY(!g[3].padding);
  // The collator's meta wins over guessing.
  Batch withMeta = row({1, 1, 0});
  withMeta.meta = {{PositionMeta{}, PositionMeta{}, PositionMeta{}}};
  withMeta.meta[0][2].kind = PositionKind::Padding;
  QVERIFY(positionFlagsForRow(withMeta, 0)[2].padding);
  QVERIFY(!positionFlagsForRow(withMeta, 0)[1].padding);
}

void TestAttentionGrid::effectivePositions() {
  Batch b = row({0, 1, 1});
  IntGrid p = effectivePositionIds(b);
  QCOMPARE(p.values, (Ids{0, 1, 2}));
  Batch given = row({0, 1, 1}, {1, 0, 1});
  QCOMPARE(effectivePositionIds(given).values, (Ids{1, 0, 1}));
}

QTEST_GUILESS_MAIN(TestAttentionGrid)
#include "tst_attention_grid.moc"
