// Loading what a user's own collator produced: safetensors checked as the reference
// implementation checks them (each broken fixture gives its own clear error), JSON/JSONL with 1-D
// rows and segment ids, a torch.save(dict) .pt through the LibTorch module, and the packed
// segments recovered from every format.
#include "core/batchio/BatchJson.h"
#include "core/batchio/BatchLoader.h"
#include "core/batchio/SafetensorsReader.h"
#include "core/forward/ForwardEngineLoader.h"
#include "core/util/Error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace maskscope;

using Ids = std::vector<int64_t>;

namespace {

std::string fixture(const char* name) { return std::string(MASKSCOPE_TEST_DATA_DIR) + "/batchio/" + name; }

void checkRightPadded(const Batch& b) {
  QCOMPARE(b.batchSize(), int64_t(2));
  QCOMPARE(b.length(), int64_t(6));
  QCOMPARE(b.inputIds.values, (Ids{4, 304, 16, 827, 5, 0, 4, 304, 16, 866, 795, 5}));
  QCOMPARE(b.attentionMask.values, (Ids{1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1}));
  QCOMPARE(b.labels.values, (Ids{-100, -100, -100, 827, 5, -100, -100, -100, -100, 866, 795, 5}));
  QCOMPARE(b.positionIds.values, (Ids{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  QCOMPARE(b.segments.size(), size_t(2));
  QVERIFY(b.segments[0].empty() && b.segments[1].empty());
}

} // namespace

class TestBatchLoader : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void safetensorsGood();
  void safetensorsNarrowDtypes();
  void safetensorsBroken_data();
  void safetensorsBroken();
  void shapeMismatchKeptWhenAsked();
  void packedDumps_data();
  void packedDumps();
  void jsonRoundTrip();
  void jsonErrors_data();
  void jsonErrors();
  void torchPt();
};

void TestBatchLoader::safetensorsGood() {
  Batch b = loadBatchDump(fixture("right_padded.safetensors"));
  checkRightPadded(b);
  QCOMPARE(b.padTokenId.value_or(-1), int64_t(0));
  QCOMPARE(b.eosTokenId.value_or(-1), int64_t(5));
  SafetensorsReader f(fixture("right_padded.safetensors"));
  QCOMPARE(f.metadata().at("written_by"), std::string("make_fixtures.py"));
  QCOMPARE(f.tensors().size(), size_t(6));
  QVERIFY(f.find("labels") && f.find("labels")->dtype == "I64");
}

void TestBatchLoader::safetensorsNarrowDtypes() {
  // I32 ids, BOOL mask, I16 labels (negative values sign-extended), U8 positions.
  Batch b = loadBatchDump(fixture("narrow_dtypes.safetensors"));
  checkRightPadded(b);
  QVERIFY(!b.padTokenId);
}

void TestBatchLoader::safetensorsBroken_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<QString>("mentions");
  QTest::newRow("truncated") << QStringLiteral("bad_truncated.safetensors") << QStringLiteral("truncated file");
  QTest::newRow("trailing-bytes") << QStringLiteral("bad_trailing.safetensors") << QStringLiteral("trailing bytes");
  QTest::newRow("header-too-large") << QStringLiteral("bad_header_too_large.safetensors") << QStringLiteral("100 MB");
  QTest::newRow("header-past-end") << QStringLiteral("bad_header_past_end.safetensors")
                                   << QStringLiteral("past the end");
  QTest::newRow("header-not-json") << QStringLiteral("bad_header_not_json.safetensors")
                                   << QStringLiteral("not a JSON object");
  QTest::newRow("shorter-than-8-bytes") << QStringLiteral("bad_short.safetensors")
                                        << QStringLiteral("8-byte header length");
  QTest::newRow("overlapping-offsets") << QStringLiteral("bad_overlap.safetensors") << QStringLiteral("overlap");
  QTest::newRow("size-lie") << QStringLiteral("bad_size_lie.safetensors") << QStringLiteral("of this shape needs 48");
  QTest::newRow("float-ids") << QStringLiteral("bad_float_ids.safetensors")
                             << QStringLiteral("F32 is not an integer type");
  QTest::newRow("unknown-dtype") << QStringLiteral("bad_unknown_dtype.safetensors")
                                 << QStringLiteral("unknown dtype \"I128\"");
  QTest::newRow("shape-mismatch") << QStringLiteral("bad_shape_mismatch.safetensors")
                                  << QStringLiteral("labels has shape [2, 5]");
}

void TestBatchLoader::safetensorsBroken() {
  QFETCH(QString, file);
  QFETCH(QString, mentions);
  const std::string path = fixture(file.toLatin1().constData());
  try {
    loadBatchDump(path);
    QFAIL("loaded a broken file");
  } catch (const Error& e) {
    const QString what = QString::fromStdString(e.what());
    QVERIFY2(what.contains(mentions), e.what());
    QVERIFY2(what.contains(file), e.what()); // the message names the file
  }
}

void TestBatchLoader::shapeMismatchKeptWhenAsked() {
  Batch b = loadBatchDump(fixture("bad_shape_mismatch.safetensors"), /*strictShapes=*/false);
  QCOMPARE(b.labels.cols, int64_t(5));
  QCOMPARE(b.inputIds.cols, int64_t(6));
}

void TestBatchLoader::packedDumps_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<Ids>("bounds");
  // Three examples of 3, 2, 4 tokens in one padding-free row (no attention_mask: ones).
  QTest::newRow("padding-free-safetensors") << QStringLiteral("padding_free.safetensors") << Ids{0, 3, 3, 5, 5, 9};
  QTest::newRow("padding-free-json") << QStringLiteral("padding_free.json") << Ids{0, 3, 3, 5, 5, 9};
  // Segment ids 1, 2, 3 and a pad.
  QTest::newRow("segment-ids-safetensors") << QStringLiteral("segment_ids.safetensors") << Ids{0, 3, 3, 5, 5, 7};
  QTest::newRow("segment-ids-json") << QStringLiteral("segment_ids.json") << Ids{0, 3, 3, 5, 5, 7};
}

void TestBatchLoader::packedDumps() {
  QFETCH(QString, file);
  QFETCH(Ids, bounds);
  Batch b = loadBatchDump(fixture(file.toLatin1().constData()));
  QCOMPARE(b.batchSize(), int64_t(1));
  QVERIFY(b.attentionMask.sameShape(b.inputIds));
  QCOMPARE(b.segments.size(), size_t(1));
  Ids got;
  for (const Segment& s : b.segments[0]) {
    got.push_back(s.begin);
    got.push_back(s.end);
  }
  QCOMPARE(got, bounds);
}

void TestBatchLoader::jsonRoundTrip() {
  Batch a = loadBatchDump(fixture("right_padded.safetensors"));
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("batch.json")).toStdString();
  std::ofstream(path) << batchToJson(a).dump();
  checkRightPadded(loadBatchDump(path));
  // JSONL: one object per row with 1-D lists, stacked into rows.
  const std::string jl = dir.filePath(QStringLiteral("batch.jsonl")).toStdString();
  {
    std::ofstream out(jl);
    auto j = batchToJson(a);
    for (int r = 0; r < 2; ++r)
      out << nlohmann::json{{"input_ids", j["input_ids"][r]},
                            {"attention_mask", j["attention_mask"][r]},
                            {"labels", j["labels"][r]},
                            {"position_ids", j["position_ids"][r]}}
                 .dump()
          << "\n";
  }
  checkRightPadded(loadBatchDump(jl));
}

void TestBatchLoader::jsonErrors_data() {
  // Broken JSON dumps (tests/data/batchio/bad_*.json) and what the error must say.
  QTest::addColumn<QString>("file");
  QTest::addColumn<QString>("mentions");
  QTest::newRow("not-json") << QStringLiteral("bad_not_json.json") << QStringLiteral("invalid JSON");
  QTest::newRow("missing-labels") << QStringLiteral("bad_missing_labels.json") << QStringLiteral("missing \"labels\"");
  QTest::newRow("ragged") << QStringLiteral("bad_ragged.json") << QStringLiteral("ragged");
  QTest::newRow("not-integer") << QStringLiteral("bad_not_integer.json") << QStringLiteral("not an integer");
  QTest::newRow("shape") << QStringLiteral("bad_shape.json") << QStringLiteral("labels has shape [1, 3]");
  QTest::newRow("negative-mask") << QStringLiteral("bad_negative_mask.json") << QStringLiteral("negative");
}

void TestBatchLoader::jsonErrors() {
  QFETCH(QString, file);
  QFETCH(QString, mentions);
  const std::string path = fixture(qPrintable(file));
  try {
    loadBatchDump(path);
    QFAIL("no error");
  } catch (const Error& e) {
    QVERIFY2(QString::fromStdString(e.what()).contains(mentions), e.what());
    QVERIFY2(QString::fromStdString(e.what()).contains(file), e.what()); // the message names the file
  }
}

void TestBatchLoader::torchPt() {
  // Written by Debian's python3-torch: torch.save({"input_ids": tensor, ..., "pad_token_id": 0}).
  std::string why;
  if (!loadForwardEngine(&why)) {
    // Without the module the loader must say what is missing.
    try {
      loadBatchDump(fixture("right_padded.pt"));
      QFAIL("loaded a .pt without the LibTorch module");
    } catch (const Error& e) {
      QVERIFY2(QString::fromStdString(e.what()).contains(QLatin1String("libmaskscope_torch")), e.what());
    }
#ifdef MASKSCOPE_HAVE_TORCH_MODULE
    QFAIL(
        qPrintable(QStringLiteral("the LibTorch module was built but does not load: ") + QString::fromStdString(why)));
#else
    QSKIP(qPrintable(QStringLiteral("the LibTorch module (libmaskscope_torch.so) is not built: ") +
                     QString::fromStdString(why)));
#endif
  }
  Batch b = loadBatchDump(fixture("right_padded.pt"));
  checkRightPadded(b);
  QCOMPARE(b.padTokenId.value_or(-1), int64_t(0));
}

QTEST_GUILESS_MAIN(TestBatchLoader)
#include "tst_batch_loader.moc"
