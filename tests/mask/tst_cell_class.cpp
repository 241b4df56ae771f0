// Cell classes of hand-made rows: pads that an all-ones mask lets through, packed examples that a
// plain mask lets see each other (revealed by position-id resets or the collator's segments), and
// the blocked cases that stay as the mask says, and sliding-window layers. Pictures: A allowed,
// F future, P padding (blocked), O other example (blocked), W outside the window (blocked),
// a allowed pad key, o allowed key of another example.
#include "core/mask/CellClass.h"

#include <QtTest>

using namespace maskscope;

using Ids = std::vector<int64_t>;

namespace {

// One row: ids as given, the mask as given, optional position ids; pad id 0.
Batch row(const Ids& ids, const Ids& mask, const Ids& positions) {
  Batch b;
  const int64_t T = int64_t(ids.size());
  b.inputIds = IntGrid(1, T);
  b.inputIds.values = ids;
  b.attentionMask = IntGrid(1, T);
  b.attentionMask.values = mask;
  b.labels = IntGrid(1, T, kIgnoreIndex);
  if (!positions.empty()) {
    b.positionIds = IntGrid(1, T);
    b.positionIds.values = positions;
  }
  b.padTokenId = 0;
  return b;
}

QStringList picture(const RowAnatomy& a) {
  QStringList out;
  for (int64_t q = 0; q < a.size(); ++q) {
    QString line;
    for (int64_t k = 0; k < a.size(); ++k) line += QLatin1Char("AFPOWao"[int(a.classify(q, k))]);
    out << line;
  }
  return out;
}

} // namespace

class TestCellClass : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void classes_data() {
    QTest::addColumn<Ids>("ids");
    QTest::addColumn<Ids>("mask");
    QTest::addColumn<Ids>("positions");
    QTest::addColumn<QList<int>>("collatorSegments"); // begin, end pairs; empty = none
    QTest::addColumn<QString>("expected");            // query rows, space-separated
    QTest::addColumn<QString>("padding");             // 1 = pad position
    QTest::newRow("all-ones mask: trailing pad ids are attended pads")
        << Ids{10, 11, 12, 0, 0} << Ids{1, 1, 1, 1, 1} << Ids{} << QList<int>{}
        << QStringLiteral("AFFFF AAFFF AAAFF AAAaF AAAaa") << QStringLiteral("00011");
    QTest::newRow("0/1 mask: pads blocked as the mask says")
        << Ids{10, 11, 12, 0, 0} << Ids{1, 1, 1, 0, 0} << Ids{} << QList<int>{}
        << QStringLiteral("AFFFF AAFFF AAAFF AAAPF AAAPP") << QStringLiteral("00011");
    QTest::newRow("position resets with a plain mask: examples leak")
        << Ids{10, 11, 12, 13, 14} << Ids{1, 1, 1, 1, 1} << Ids{0, 1, 2, 0, 1} << QList<int>{}
        << QStringLiteral("AFFFF AAFFF AAAFF oooAF oooAA") << QStringLiteral("00000");
    QTest::newRow("segment ids: block diagonal, pad query keeps causal + key padding")
        << Ids{10, 11, 12, 13, 0} << Ids{1, 1, 2, 2, 0} << Ids{0, 1, 0, 1, 0} << QList<int>{}
        << QStringLiteral("AFFFF AAFFF OOAFF OOAAF AAAAP") << QStringLiteral("00001");
    QTest::newRow("collator segments with a plain mask and no positions: examples leak")
        << Ids{10, 11, 12, 13} << Ids{1, 1, 1, 1} << Ids{} << QList<int>{0, 2, 2, 4}
        << QStringLiteral("AFFF AAFF ooAF ooAA") << QStringLiteral("0000");
  }
  void classes() {
    QFETCH(Ids, ids);
    QFETCH(Ids, mask);
    QFETCH(Ids, positions);
    QFETCH(QList<int>, collatorSegments);
    QFETCH(QString, expected);
    QFETCH(QString, padding);
    Batch b = row(ids, mask, positions);
    if (!collatorSegments.isEmpty()) {
      b.segments.resize(1);
      for (int i = 0; i + 1 < collatorSegments.size(); i += 2)
        b.segments[0].push_back({collatorSegments[i], collatorSegments[i + 1], -1});
    }
    const RowAnatomy a = rowAnatomy(b, 0);
    QCOMPARE(picture(a).join(QLatin1Char(' ')), expected);
    QString pads;
    for (uint8_t p : a.padding) pads += QLatin1Char(p ? '1' : '0');
    QCOMPARE(pads, padding);
    // The classes refine the mask, never contradict it: blocked stays blocked, allowed stays allowed.
    const AttentionGrid g = attentionGridForRow(b, 0);
    for (int64_t q = 0; q < a.size(); ++q)
      for (int64_t k = 0; k < a.size(); ++k) {
        const bool allowed = g.at(q, k) == CellState::Allowed;
        const CellClass c = a.classify(q, k);
        QCOMPARE(allowed, c == CellClass::Allowed || c == CellClass::AllowedPad || c == CellClass::AllowedOtherExample);
      }
  }

  // Sliding-window layers (engine/ additiveMask, transformers' sliding_window_overlay): query q sees
  // key k only when q - k < window; the window comes after causal, padding and packing.
  void slidingWindow_data() {
    QTest::addColumn<Ids>("ids");
    QTest::addColumn<Ids>("mask");
    QTest::addColumn<int>("window");
    QTest::addColumn<QString>("expected");
    QTest::newRow("window 2, no padding: a band two keys wide")
        << Ids{10, 11, 12, 13, 14} << Ids{1, 1, 1, 1, 1} << 2 << QStringLiteral("AFFFF AAFFF WAAFF WWAAF WWWAA");
    QTest::newRow("window 1: each query sees only itself")
        << Ids{10, 11, 12, 13} << Ids{1, 1, 1, 1} << 1 << QStringLiteral("AFFF WAFF WWAF WWWA");
    QTest::newRow("window as long as the row: the full causal triangle")
        << Ids{10, 11, 12} << Ids{1, 1, 1} << 3 << QStringLiteral("AFF AAF AAA");
    QTest::newRow("right padding: pad keys stay padding, pad queries get the window too")
        << Ids{10, 11, 12, 0, 0} << Ids{1, 1, 1, 0, 0} << 2 << QStringLiteral("AFFFF AAFFF WAAFF WWAPF WWWPP");
    QTest::newRow("left padding: padding is the reason even outside the window")
        << Ids{0, 0, 10, 11, 12} << Ids{0, 0, 1, 1, 1} << 2 << QStringLiteral("PFFFF PPFFF PPAFF PPAAF PPWAA");
    QTest::newRow("packed segments: another example's key stays other example")
        << Ids{10, 11, 12, 13, 14} << Ids{1, 1, 1, 2, 2} << 2 << QStringLiteral("AFFFF AAFFF WAAFF OOOAF OOOAA");
    QTest::newRow("all-ones mask over pads: an allowed pad inside the window, blocked outside")
        << Ids{10, 11, 0, 0} << Ids{1, 1, 1, 1} << 2 << QStringLiteral("AFFF AAFF WAaF WWaa");
  }
  void slidingWindow() {
    QFETCH(Ids, ids);
    QFETCH(Ids, mask);
    QFETCH(int, window);
    QFETCH(QString, expected);
    const Batch b = row(ids, mask, {});
    const RowAnatomy a = rowAnatomy(b, 0, MaskSemantics::Eager, window);
    QCOMPARE(picture(a).join(QLatin1Char(' ')), expected);
    // The grid, one query's row and the anatomy agree cell for cell.
    const AttentionGrid g = attentionGridForRow(b, 0, MaskSemantics::Eager, window);
    for (int64_t q = 0; q < a.size(); ++q) {
      const std::vector<CellState> r = attentionRow(b, 0, q, MaskSemantics::Eager, window);
      for (int64_t k = 0; k < a.size(); ++k) {
        QCOMPARE(g.at(q, k), a.state(q, k));
        QCOMPARE(r[size_t(k)], a.state(q, k));
      }
    }
  }

  // A sliding query over real keys of one example sees exactly min(q + 1, window) keys, itself included.
  void slidingQuerySeesWindowKeys_data() {
    QTest::addColumn<int>("length");
    QTest::addColumn<int>("window");
    QTest::newRow("window 4 of 16") << 16 << 4;
    QTest::newRow("window 1 of 5") << 5 << 1;
    QTest::newRow("window 7 of 7") << 7 << 7;
    QTest::newRow("window longer than the row") << 6 << 4096;
  }
  void slidingQuerySeesWindowKeys() {
    QFETCH(int, length);
    QFETCH(int, window);
    Ids ids(static_cast<size_t>(length)), mask(static_cast<size_t>(length), 1);
    for (int t = 0; t < length; ++t) ids[size_t(t)] = 10 + t;
    const AttentionGrid g = attentionGridForRow(row(ids, mask, {}), 0, MaskSemantics::Eager, window);
    for (int64_t q = 0; q < length; ++q) {
      int64_t seen = 0, oldest = q;
      for (int64_t k = 0; k < length; ++k)
        if (g.at(q, k) == CellState::Allowed) {
          ++seen;
          oldest = std::min(oldest, k);
        }
      QCOMPARE(seen, std::min<int64_t>(q + 1, window));
      QCOMPARE(oldest, std::max<int64_t>(0, q - window + 1));
    }
    QCOMPARE(QString::fromLatin1(cellClassName(CellClass::OutsideWindow)), QStringLiteral("outside the window"));
    QCOMPARE(QString::fromLatin1(cellStateName(CellState::OutsideWindow)), QStringLiteral("outside the window"));
  }

  void collatorMetaIsThePaddingRule() {
    // The collator says position 2 is a pad even though its id is not the pad id: meta wins.
    Batch b = row({10, 11, 12}, {1, 1, 1}, {});
    b.meta.assign(1, std::vector<PositionMeta>(3));
    b.meta[0][2].kind = PositionKind::Padding;
    b.meta[0][0].kind = PositionKind::Template;
    const RowAnatomy a = rowAnatomy(b, 0);
    QCOMPARE(a.classify(2, 2), CellClass::AllowedPad);
    QCOMPARE(a.classify(2, 1), CellClass::Allowed);
    QVERIFY(a.padQuery(2));
    QVERIFY(a.special[0]);
    QVERIFY(!a.special[1]);
  }

  void exampleStartsAndNames() {
    Batch b = row({10, 11, 12, 13, 14, 0}, {1, 1, 2, 2, 3, 0}, {});
    const RowAnatomy a = rowAnatomy(b, 0);
    QVERIFY(a.examplesKnown);
    QCOMPARE(a.exampleStarts(), (std::vector<int64_t>{2, 4}));
    QCOMPARE(QString::fromLatin1(cellClassName(CellClass::AllowedPad)), QStringLiteral("allowed pad"));
    QVERIFY_THROWS_EXCEPTION(std::exception, rowAnatomy(b, 1));
  }
};

QTEST_MAIN(TestCellClass)
#include "tst_cell_class.moc"
