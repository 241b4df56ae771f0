// The mask each attention implementation of transformers really applies: one padding-free pair of
// examples in the shapes collators write it (no mask, all-ones mask, cu_seq_lens, two rows, left
// padding, a 4-D mask), each under eager/sdpa/flash_attention_2/flex_attention, cell by cell.
#include "core/batchio/BatchLoader.h"
#include "core/mask/EffectiveAttention.h"
#include "core/mask/PackedSegments.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <QtTest>

using namespace maskscope;

namespace {

std::string fixture(const std::string& name) {
  return std::string(MASKSCOPE_TEST_DATA_DIR) + "/mask/attention/" + name;
}

const nlohmann::json& expected() {
  static const nlohmann::json doc = parseJsonOrThrow(readFileCapped(fixture("expected.json")), {"expected.json"});
  return doc;
}

// The grid as rows of letters: A allowed, F future, P padding, O other example, W outside the window.
QStringList picture(const AttentionGrid& g) {
  QStringList out;
  for (int64_t q = 0; q < g.size; ++q) {
    QString line;
    for (int64_t k = 0; k < g.size; ++k) line += QLatin1Char("AFPOW"[int(g.at(q, k))]);
    out << line;
  }
  return out;
}

AttnImplementation implementationOf(const std::string& name) {
  const auto impl = attnImplementationFromName(name);
  if (!impl) throw Error("unknown implementation " + name);
  return *impl;
}

} // namespace

class TestEffectiveAttention : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void masks_data();
  void masks();
  void pickle_data();
  void pickle();
  void names();
  void implied_data();
  void implied();
  void segmentIdMaskForTheEngine();
  void crossExampleCellsCountsTheGrid_data();
  void crossExampleCellsCountsTheGrid();
};

void TestEffectiveAttention::masks_data() {
  QTest::addColumn<int>("index");
  const nlohmann::json& cases = expected()["cases"];
  for (size_t i = 0; i < cases.size(); ++i) QTest::newRow(cases[i]["name"].get<std::string>().c_str()) << int(i);
}

void TestEffectiveAttention::masks() {
  QFETCH(int, index);
  const nlohmann::json& c = expected()["cases"][size_t(index)];
  const Batch b = loadBatchDump(fixture(c["dump"].get<std::string>()));
  const AttnImplementation impl = implementationOf(c["implementation"].get<std::string>());
  if (c.contains("error_contains")) {
    try {
      effectiveAttention(b, impl);
      QFAIL("expected an error");
    } catch (const Error& e) {
      for (const auto& part : c["error_contains"])
        QVERIFY2(e.message().find(part.get<std::string>()) != std::string::npos, e.message().c_str());
    }
    return;
  }
  const EffectiveMask m = effectiveAttention(b, impl);
  QCOMPARE(m.implementation, impl);
  QVERIFY2(m.rule.starts_with(attnImplementationName(impl)), m.rule.c_str());
  for (const auto& part : c["rule_contains"])
    QVERIFY2(m.rule.find(part.get<std::string>()) != std::string::npos,
             (m.rule + "\n  lacks: " + part.get<std::string>()).c_str());
  const auto& grids = c["grids"];
  QCOMPARE(int64_t(grids.size()), b.batchSize());
  for (size_t r = 0; r < grids.size(); ++r) {
    QStringList want;
    for (const auto& line : grids[r]) want << QString::fromStdString(line.get<std::string>());
    QCOMPARE(picture(m.grid(int64_t(r))), want);
  }
}

// The torch.save twins load to the same batch, so the CLI on a .pt sees the same masks.
void TestEffectiveAttention::pickle_data() {
  QTest::addColumn<QString>("name");
  for (const char* n :
       {"padding_free", "all_ones_mask", "cu_seq_lens", "two_rows_padding_free", "left_padded", "mask_4d"})
    QTest::newRow(n) << QString::fromLatin1(n);
}

void TestEffectiveAttention::pickle() {
#ifndef MASKSCOPE_HAVE_TORCH_MODULE
  QSKIP("the LibTorch module is not part of this build");
#else
  QFETCH(QString, name);
  const Batch js = loadBatchDump(fixture(name.toStdString() + ".json"));
  const Batch pt = loadBatchDump(fixture(name.toStdString() + ".pt"));
  QCOMPARE(pt.attentionMaskGiven, js.attentionMaskGiven);
  QCOMPARE(pt.attentionMask4d, js.attentionMask4d);
  QCOMPARE(pt.attentionMask, js.attentionMask);
  QCOMPARE(pt.positionIds, js.positionIds);
  QCOMPARE(pt.segments.size(), js.segments.size());
  for (AttnImplementation impl : kAttnImplementations) {
    if (!js.attentionMask4d.empty() && impl == AttnImplementation::FlashAttention2) continue;
    const EffectiveMask a = effectiveAttention(js, impl), b = effectiveAttention(pt, impl);
    QCOMPARE(QString::fromStdString(b.rule), QString::fromStdString(a.rule));
    QCOMPARE(b.segments, a.segments);
  }
#endif
}

void TestEffectiveAttention::names() {
  for (AttnImplementation impl : kAttnImplementations)
    QCOMPARE(attnImplementationFromName(attnImplementationName(impl)), std::optional(impl));
  QVERIFY(!attnImplementationFromName("flash_attention_1"));
  QCOMPARE(attnImplementationList(), std::string("eager, sdpa, flash_attention_2, flex_attention"));
  const Batch b = loadBatchDump(fixture("left_padded.json"));
  try {
    chooseAttnImplementation(b, "flash");
    QFAIL("accepted an unknown implementation");
  } catch (const Error& e) {
    QVERIFY2(e.message().find("eager, sdpa, flash_attention_2, flex_attention") != std::string::npos,
             e.message().c_str());
  }
  const AttnChoice chosen = chooseAttnImplementation(b, "eager");
  QCOMPARE(chosen.implementation, AttnImplementation::Eager);
  QVERIFY(!chosen.assumed);
}

void TestEffectiveAttention::implied_data() {
  QTest::addColumn<QString>("dump");
  QTest::addColumn<QString>("implementation");
  QTest::newRow("padding_free") << "padding_free.json"
                                << "flash_attention_2";
  QTest::newRow("cu_seq_lens") << "cu_seq_lens.json"
                               << "flash_attention_2";
  QTest::newRow("all_ones_mask") << "all_ones_mask.json"
                                 << "sdpa";
  QTest::newRow("left_padded") << "left_padded.json"
                               << "sdpa";
  QTest::newRow("mask_4d") << "mask_4d.json"
                           << "sdpa";
}

void TestEffectiveAttention::implied() {
  QFETCH(QString, dump);
  QFETCH(QString, implementation);
  const AttnChoice c = impliedAttnImplementation(loadBatchDump(fixture(dump.toStdString())));
  QCOMPARE(QString::fromLatin1(attnImplementationName(c.implementation)), implementation);
  QVERIFY(c.assumed);
  QVERIFY(!c.why.empty());
}

// The loss engine takes segment ids: the effective masks become them, a block-diagonal 4-D mask too.
void TestEffectiveAttention::segmentIdMaskForTheEngine() {
  const Batch four = loadBatchDump(fixture("mask_4d.json"));
  QCOMPARE(effectiveAttention(four, AttnImplementation::Sdpa).segmentIdMask().values,
           (std::vector<int64_t>{1, 1, 1, 2, 2, 2, 2}));
  const Batch ones = loadBatchDump(fixture("all_ones_mask.json"));
  QCOMPARE(effectiveAttention(ones, AttnImplementation::Sdpa).segmentIdMask().values, std::vector<int64_t>(7, 1));
  QCOMPARE(effectiveAttention(ones, AttnImplementation::FlashAttention2).segmentIdMask().values,
           (std::vector<int64_t>{1, 1, 1, 2, 2, 2, 2}));
  // A 4-D mask that is not block-diagonal causal (key 0 visible from the second block) cannot run.
  Batch odd = four;
  odd.attentionMask4d[0][size_t(4 * 7 + 0)] = 1;
  QVERIFY_THROWS_EXCEPTION(Error, effectiveAttention(odd, AttnImplementation::Sdpa).segmentIdMask());
  // A batch built without a mask grid (as some callers build one) reads as all ones, never out of bounds.
  Batch bare;
  bare.inputIds = IntGrid(1, 3, 5);
  bare.labels = IntGrid(1, 3, kIgnoreIndex);
  for (AttnImplementation impl : kAttnImplementations)
    QCOMPARE(effectiveAttention(bare, impl).segments[0], std::vector<int64_t>(3, 1));
  const EffectiveMask m = effectiveAttention(ones, AttnImplementation::Sdpa);
  QCOMPARE(m.crossExampleCells(0, segmentsOfRow(ones, 0)), int64_t(12)); // 3 x 4 keys of A seen from B
  QCOMPARE(effectiveAttention(ones, AttnImplementation::FlashAttention2).crossExampleCells(0, segmentsOfRow(ones, 0)),
           int64_t(0));
}

// crossExampleCells counts from runs of segments and examples in O(T); the reference walks every
// cell of the [T, T] grid with cellStateOf. Rows cover the run-counting path (packed, padding at the
// ends) and the hashed one (padding inside the row, a segment id that recurs), with pad queries.
void TestEffectiveAttention::crossExampleCellsCountsTheGrid_data() {
  QTest::addColumn<QList<qint64>>("segments");
  QTest::addColumn<QList<qint64>>("bounds"); // example i = [bounds[2i], bounds[2i+1])
  QTest::newRow("one segment, three examples")
      << QList<qint64>{1, 1, 1, 1, 1, 1, 1, 1} << QList<qint64>{0, 3, 3, 5, 5, 8};
  QTest::newRow("segments = examples") << QList<qint64>{1, 1, 1, 2, 2, 3, 3, 3} << QList<qint64>{0, 3, 3, 5, 5, 8};
  QTest::newRow("segments split an example") << QList<qint64>{1, 1, 2, 2, 2, 2, 3, 3} << QList<qint64>{0, 3, 3, 7};
  QTest::newRow("right padding queries") << QList<qint64>{1, 1, 1, 1, 1, 0, 0, 0} << QList<qint64>{0, 2, 2, 8};
  QTest::newRow("left padding") << QList<qint64>{0, 0, 1, 1, 1, 1, 1, 1} << QList<qint64>{2, 5, 5, 8};
  QTest::newRow("padding inside the row") << QList<qint64>{1, 1, 0, 1, 1, 1, 0, 1} << QList<qint64>{0, 3, 3, 6, 6, 8};
  QTest::newRow("a segment id recurs") << QList<qint64>{1, 1, 2, 2, 1, 1, 2, 2} << QList<qint64>{0, 4, 4, 8};
  QTest::newRow("examples leave gaps") << QList<qint64>{1, 1, 1, 1, 1, 1, 1, 1, 1} << QList<qint64>{1, 3, 5, 7};
}

void TestEffectiveAttention::crossExampleCellsCountsTheGrid() {
  QFETCH(QList<qint64>, segments);
  QFETCH(QList<qint64>, bounds);
  EffectiveMask m;
  m.segments = {std::vector<int64_t>(segments.begin(), segments.end())};
  std::vector<Segment> examples;
  for (qsizetype i = 0; i + 1 < bounds.size(); i += 2) examples.push_back({bounds[i], bounds[i + 1], -1});
  const int64_t T = segments.size();
  std::vector<int64_t> example(size_t(T), 0);
  for (size_t i = 0; i < examples.size(); ++i)
    for (int64_t t = examples[i].begin; t < examples[i].end; ++t) example[size_t(t)] = int64_t(i) + 1;
  int64_t expected = 0;
  for (int64_t q = 0; q < T; ++q)
    for (int64_t k = 0; k < q; ++k)
      expected += example[size_t(q)] && example[size_t(k)] && example[size_t(q)] != example[size_t(k)] &&
                  cellStateOf(m.segments[0], q, k) == CellState::Allowed;
  QCOMPARE(m.crossExampleCells(0, examples), expected);
}

QTEST_GUILESS_MAIN(TestEffectiveAttention)
#include "tst_effective_attention.moc"
