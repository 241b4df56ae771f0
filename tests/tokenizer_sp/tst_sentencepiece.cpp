// SentencePiece tokenizer: ids, pieces and byte offsets equal python3-sentencepiece's on the demo
// model (goldens by tools/goldens/sentencepiece_goldens.py); special-token splitting as transformers.
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"

#include <QFile>
#include <QTemporaryFile>
#include <QTest>
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
};

QTEST_GUILESS_MAIN(TestSentencePiece)
#include "tst_sentencepiece.moc"
