// Cell classes of hand-made rows: pads that an all-ones mask lets through, packed examples that a
// plain mask lets see each other (revealed by position-id resets or the collator's segments), and
// the blocked cases that stay as the mask says. Pictures: A allowed, F future, P padding (blocked),
// O other example (blocked), a allowed pad key, o allowed key of another example.
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
    for (int64_t k = 0; k < a.size(); ++k) line += QLatin1Char("AFPOao"[int(a.classify(q, k))]);
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
