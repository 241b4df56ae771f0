// SentencePiece tokenizer: ids, pieces and byte offsets equal python3-sentencepiece's on the demo
// model (goldens by tools/goldens/sentencepiece_goldens.py); special-token splitting as transformers.
// A real NFKC model (tools/goldens/nfkc_model.py) passes the precompiled_charsmap check and
// tokenizes as the reference; each corruption of its charsmap is refused before libsentencepiece.
#include "core/tokenizer/SentencePieceModelCheck.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"

#include <QDir>
#include <QFile>
#include <QTemporaryFile>
#include <QTest>
#include <cstring>
#include <nlohmann/json.hpp>

using namespace maskscope;

class TestSentencePiece : public QObject {
  Q_OBJECT
  std::shared_ptr<Tokenizer> tok;
  nlohmann::json goldens;

private Q_SLOTS:
  void initTestCase() {
    tok = loadTokenizer("builtin:demo");
    QFile f(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/sentencepiece/demo_goldens.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    goldens = nlohmann::json::parse(f.readAll().toStdString());
    QVERIFY(goldens["cases"].size() >= 30);
  }

  void modelFacts() {
    const auto& m = goldens["model"];
    QCOMPARE(tok->vocabSize(), m["vocab_size"].get<int>());
    auto sp = tok->specialTokens();
    QCOMPARE(*sp.pad, m["pad_id"].get<int>());
    QCOMPARE(*sp.bos, m["bos_id"].get<int>());
    QCOMPARE(*sp.eos, m["eos_id"].get<int>());
    QCOMPARE(*sp.unk, m["unk_id"].get<int>());
    QCOMPARE(*tok->tokenToId("<|im_start|>"), m["im_start_id"].get<int>());
    QCOMPARE(*tok->tokenToId("<|im_end|>"), m["im_end_id"].get<int>());
    QVERIFY(tok->isSpecial(m["im_end_id"].get<int>()));
    QVERIFY(!tok->tokenToId("no-such-piece-xyz").has_value());
  }

  void matchesPythonSentencePiece_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < goldens["cases"].size(); ++i)
      QTest::newRow(goldens["cases"][i]["name"].get<std::string>().c_str()) << int(i);
  }
  void matchesPythonSentencePiece() {
    QFETCH(int, index);
    const auto& c = goldens["cases"][size_t(index)];
    // Goldens are plain SentencePiece encodes: special strings stay text (split_special_tokens).
    Encoding e = tok->encode(c["text"].get<std::string>(), {false, true});
    QCOMPARE(std::vector<int32_t>(e.ids), c["ids"].get<std::vector<int32_t>>());
    QCOMPARE(e.tokens, c["pieces"].get<std::vector<std::string>>());
    for (size_t i = 0; i < e.size(); ++i) {
      QCOMPARE(e.offsets[i].begin, c["offsets"][i][0].get<int64_t>());
      QCOMPARE(e.offsets[i].end, c["offsets"][i][1].get<int64_t>());
    }
    QCOMPARE(tok->decode(e.ids), c["text"].get<std::string>());
  }

  void specialTokensRecognised_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("specialCount");
    QTest::addColumn<int>("firstSpecialBegin");
    QTest::newRow("chatml-turn") << QStringLiteral("<|im_start|>user\nHi<|im_end|>\n") << 2 << 0;
    QTest::newRow("inside-text") << QStringLiteral("a<|im_end|>b") << 1 << 1;
    QTest::newRow("eos-string") << QStringLiteral("done</s>") << 1 << 4;
    QTest::newRow("partial-marker-is-text") << QStringLiteral("<|im_sta") << 0 << -1;
    QTest::newRow("none") << QStringLiteral("plain words") << 0 << -1;
  }
  void specialTokensRecognised() {
    QFETCH(QString, text);
    QFETCH(int, specialCount);
    QFETCH(int, firstSpecialBegin);
    std::string s = text.toStdString();
    Encoding e = tok->encode(s);
    int count = 0, first = -1;
    for (size_t i = 0; i < e.size(); ++i)
      if (e.special[i]) {
        if (first < 0) first = int(e.offsets[i].begin);
        ++count;
      }
    QCOMPARE(count, specialCount);
    QCOMPARE(first, firstSpecialBegin);
    // Offsets cover the text in order without overlap.
    int64_t prev = 0;
    for (const auto& o : e.offsets) {
      QVERIFY(o.begin >= prev || o.begin == o.end);
      prev = std::max(prev, o.end);
    }
    QCOMPARE(prev, int64_t(s.size()));
    // With split_special_tokens the markers are ordinary text again.
    Encoding split = tok->encode(s, {false, true});
    for (uint8_t sp : split.special) QCOMPARE(int(sp), 0);
  }

  void addSpecialTokensAddsBos() {
    Encoding e = tok->encode("hello", {true, false});
    QVERIFY(e.size() >= 2);
    QCOMPARE(e.ids[0], *tok->specialTokens().bos);
    QCOMPARE(e.offsets[0].begin, int64_t(0));
    QCOMPARE(e.offsets[0].end, int64_t(0));
  }

  void rejectsGarbage() {
    QVERIFY_THROWS_EXCEPTION(Error, loadTokenizer("/nonexistent/tokenizer.model"));
    QVERIFY_THROWS_EXCEPTION(Error, loadTokenizer("builtin:nothing"));
    QTemporaryFile f;
    QVERIFY(f.open());
    f.write("this is not a protobuf at all");
    f.close();
    QVERIFY_THROWS_EXCEPTION(Error, loadTokenizer(f.fileName().toStdString()));
  }

  void nfkcModelMatchesReference() {
    const std::string path = MASKSCOPE_TEST_DATA_DIR "/sentencepiece/nfkc.model";
    auto nfkc = loadTokenizer(path); // the charsmap check accepts a real trie (a DAWG: shared suffixes)
    QFile f(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/sentencepiece/nfkc_goldens.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const nlohmann::json g = nlohmann::json::parse(f.readAll().toStdString());
    QVERIFY(g["cases"].size() >= 5);
    for (const auto& c : g["cases"]) {
      const Encoding e = nfkc->encode(c["text"].get<std::string>(), {false, true});
      QCOMPARE(std::vector<int32_t>(e.ids), c["ids"].get<std::vector<int32_t>>());
      QCOMPARE(e.tokens, c["pieces"].get<std::vector<std::string>>());
    }
  }

  // The real charsmap, changed in place (same size, so the protobuf stays valid), the way a corrupt
  // download could: each change is refused with the file and the field before the library loads it.
  void corruptCharsmap_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("reason");
    QTest::newRow("root-offset-past-trie") << QStringLiteral("root-offset") << QStringLiteral("unit 0 points to units");
    QTest::newRow("child-offset-past-trie") << QStringLiteral("child-offset") << QStringLiteral("past the trie's");
    QTest::newRow("leaf-value-past-strings")
        << QStringLiteral("leaf-value") << QStringLiteral("of the normalized strings");
    QTest::newRow("child-is-its-own-child") << QStringLiteral("cycle") << QStringLiteral("the trie has a cycle");
    QTest::newRow("trie-size-past-blob") << QStringLiteral("trie-size") << QStringLiteral("leaves no room");
    QTest::newRow("no-nul-after-strings") << QStringLiteral("last-nul") << QStringLiteral("no NUL after it");
  }
  void corruptCharsmap() {
    QFETCH(QString, change);
    QFETCH(QString, reason);
    QFile f(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/sentencepiece/nfkc.model"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    std::string model = f.readAll().toStdString();
    const std::vector<CharsmapBlob> maps = precompiledCharsmaps(model);
    QCOMPARE(maps.size(), size_t(1));
    QCOMPARE(maps[0].field, std::string("normalizer_spec.precompiled_charsmap"));
    char* blob = model.data() + (maps[0].blob.data() - model.data());
    const size_t blobSize = maps[0].blob.size();
    uint32_t trieBytes = 0;
    std::memcpy(&trieBytes, blob, 4);
    auto unitAt = [&](size_t i) {
      uint32_t u = 0;
      std::memcpy(&u, blob + 4 + 4 * i, 4);
      return u;
    };
    auto setUnit = [&](size_t i, uint32_t u) { std::memcpy(blob + 4 + 4 * i, &u, 4); };
    auto offsetOf = [](uint32_t u) { return size_t((u >> 10) << ((u & (1U << 9)) >> 6)); };
    // The root's first child and a leaf, as darts-clone lays them out.
    const size_t base = offsetOf(unitAt(0));
    size_t child = 0, leafOwner = 0;
    for (uint32_t c = 1; c < 256 && !leafOwner; ++c) {
      const uint32_t u = unitAt(base ^ c);
      if ((u & ((1U << 31) | 0xFF)) != c) continue;
      if (!child) child = base ^ c;
      if ((u >> 8) & 1) leafOwner = base ^ c;
    }
    QVERIFY(child && leafOwner);
    if (change == QStringLiteral("root-offset")) setUnit(0, (unitAt(0) & 0x3FF) | (0x3FFFFFu << 10));
    // (bits 10..30 only: bit 31 would make the unit a leaf, which no search follows)
    if (change == QStringLiteral("child-offset")) setUnit(child, (unitAt(child) & 0xFF) | (0x1FFFFFu << 10));
    if (change == QStringLiteral("leaf-value")) setUnit(leafOwner ^ offsetOf(unitAt(leafOwner)), 0xFFFFFFF0u);
    if (change == QStringLiteral("cycle")) { // offset = label: the unit's own byte leads back to it
      const uint32_t label = unitAt(child) & 0xFF;
      setUnit(child, (unitAt(child) & 0x1FF & ~(1U << 8)) | (label << 10));
    }
    if (change == QStringLiteral("trie-size")) {
      const uint32_t size = uint32_t(blobSize - 4);
      std::memcpy(blob, &size, 4);
    }
    if (change == QStringLiteral("last-nul")) std::memset(blob + 4 + trieBytes, 'x', blobSize - 4 - trieBytes);
    try {
      loadCorrupt(model);
      QFAIL("a corrupt charsmap was loaded");
    } catch (const Error& e) {
      QVERIFY2(q(e.message()).contains(reason), e.what());
      QVERIFY2(q(e.message()).contains(QStringLiteral("corrupt precompiled_charsmap")), e.what());
      QCOMPARE(e.where().file, std::string("corrupt.model"));
      QCOMPARE(e.where().field, std::string("normalizer_spec.precompiled_charsmap"));
    }
  }

  // The hostile files (tests/data/hostile/make_hostile.py): the demo model with a charsmap appended.
  void hostileCharsmapModels() {
    for (const char* name : {"charsmap_root_far.model", "charsmap_leaf_far.model"}) {
      const std::string path = std::string(MASKSCOPE_TEST_DATA_DIR "/hostile/") + name;
      QVERIFY_THROWS_EXCEPTION(Error, loadTokenizer(path));
    }
  }

private:
  static QString q(const std::string& s) { return QString::fromStdString(s); }
  static void loadCorrupt(const std::string& model) {
    // Through the factory's own path: a .model file, so the check runs where users hit it.
    QTemporaryFile f(QDir::tempPath() + QStringLiteral("/XXXXXX-corrupt.model"));
    QVERIFY(f.open());
    f.write(model.data(), qint64(model.size()));
    f.close();
    try {
      loadTokenizer(f.fileName().toStdString());
    } catch (const Error& e) {
      SourceLocation at = e.where();
      QVERIFY2(at.file == f.fileName().toStdString(), e.what());
      at.file = "corrupt.model";
      throw Error(e.message(), at);
    }
  }
};

QTEST_GUILESS_MAIN(TestSentencePiece)
#include "tst_sentencepiece.moc"
