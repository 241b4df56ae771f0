// The command line as scripts use it: JSON as docs/cli.md documents it on stdout and nothing else there,
// exit status 0/1/2, errors on stderr naming the file.
#include "RunMaskscope.h"

#include <QProcess>
#include <QTest>
#include <nlohmann/json.hpp>

class TestCli : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void tokenizeJson() {
    Run r = runMaskscope({QStringLiteral("tokenize"), QStringLiteral("--tokenizer"), QStringLiteral("builtin:demo"),
                          QStringLiteral("--text"), QStringLiteral("Padding masking gates both."),
                          QStringLiteral("--json")});
    QCOMPARE(r.status, 0);
    auto j = nlohmann::json::parse(r.out.toStdString());
    QVERIFY(j["ids"].is_array() && j["tokens"].is_array() && j["offsets"].is_array());
    QCOMPARE(j["ids"].size(), j["tokens"].size());
    QCOMPARE(j["ids"].size(), j["offsets"].size());
    QCOMPARE(j["offsets"].back()[1].get<int>(), 27); // UTF-8 bytes of the text
  }

  void tokenizeJsonlKeepsOrder() {
    // A JSON string, an object with "text", and an empty string.
    const QString path = QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/cli/three_texts.jsonl");
    Run r = runMaskscope({QStringLiteral("tokenize"), QStringLiteral("--tokenizer"), QStringLiteral("builtin:demo"),
                          QStringLiteral("--jsonl"), path, QStringLiteral("--json")});
    QCOMPARE(r.status, 0);
    QList<QByteArray> lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(nlohmann::json::parse(lines[2].toStdString())["ids"].size(), size_t(0));
  }

  void collate_data() {
    QTest::addColumn<QString>("collator");
    QTest::addColumn<bool>("padsAttended");
    QTest::addColumn<bool>("padsGraded");
    QTest::newRow("default") << QStringLiteral("default") << false << false;
    QTest::newRow("buggy-max-length-all-ones") << QStringLiteral("buggy-max-length-all-ones") << true << true;
  }
  void collate() {
    QFETCH(QString, collator);
    QFETCH(bool, padsAttended);
    QFETCH(bool, padsGraded);
    Run r = runMaskscope({QStringLiteral("collate"), QStringLiteral("--tokenizer"), QStringLiteral("builtin:demo"),
                          QStringLiteral("--data"), QStringLiteral("builtin:demo"), QStringLiteral("--rows"),
                          QStringLiteral("0:4"), QStringLiteral("--collator"), collator, QStringLiteral("--json")});
    QCOMPARE(r.status, 0);
    auto j = nlohmann::json::parse(r.out.toStdString());
    for (const char* key : {"input_ids", "attention_mask", "labels", "position_ids"}) {
      QVERIFY2(j[key].is_array(), key);
      QCOMPARE(j[key].size(), size_t(4));
    }
    // Row 1 of the demo is shorter than row 2, so it is padded.
    const auto& ids = j["input_ids"][1];
    const auto& mask = j["attention_mask"][1];
    const auto& labels = j["labels"][1];
    QCOMPARE(ids.size(), j["input_ids"][2].size());
    bool anyPadAttended = false, anyPadGraded = false;
    const size_t n = ids.size();
    QVERIFY(ids[n - 1].get<int>() == 0); // <pad>
    for (size_t t = n - 10; t < n; ++t) {
      anyPadAttended = anyPadAttended || mask[t].get<int>() == 1;
      anyPadGraded = anyPadGraded || labels[t].get<int>() != -100;
    }
    QCOMPARE(anyPadAttended, padsAttended);
    QCOMPARE(anyPadGraded, padsGraded);
  }

  void unusableInputExitsTwo_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("stderrFragment");
    QTest::newRow("missing-tokenizer-file")
        << QStringList{QStringLiteral("tokenize"), QStringLiteral("--tokenizer"),
                       QStringLiteral("/no/such/tokenizer.model"), QStringLiteral("--text"), QStringLiteral("x")}
        << QStringLiteral("/no/such/tokenizer.model");
    QTest::newRow("unknown-collator") << QStringList{QStringLiteral("collate"),       QStringLiteral("--tokenizer"),
                                                     QStringLiteral("builtin:demo"),  QStringLiteral("--data"),
                                                     QStringLiteral("builtin:demo"),  QStringLiteral("--collator"),
                                                     QStringLiteral("no-such-preset")}
                                      << QStringLiteral("no-such-preset");
    QTest::newRow("unknown-collator-key") << QStringList{QStringLiteral("collate"),
                                                         QStringLiteral("--tokenizer"),
                                                         QStringLiteral("builtin:demo"),
                                                         QStringLiteral("--data"),
                                                         QStringLiteral("builtin:demo"),
                                                         QStringLiteral("--collator"),
                                                         QStringLiteral("default,padding_sid=left")}
                                          << QStringLiteral("padding_sid");
    QTest::newRow("bad-rows") << QStringList{QStringLiteral("collate"),      QStringLiteral("--tokenizer"),
                                             QStringLiteral("builtin:demo"), QStringLiteral("--data"),
                                             QStringLiteral("builtin:demo"), QStringLiteral("--rows"),
                                             QStringLiteral("4:2")}
                              << QStringLiteral("--rows");
    QTest::newRow("unknown-option") << QStringList{QStringLiteral("tokenize"), QStringLiteral("--tokenizer"),
                                                   QStringLiteral("builtin:demo"), QStringLiteral("--no-such-option")}
                                    << QStringLiteral("no-such-option");
  }
  void unusableInputExitsTwo() {
    QFETCH(QStringList, args);
    QFETCH(QString, stderrFragment);
    args << QStringLiteral("--json");
    Run r = runMaskscope(args);
    QCOMPARE(r.status, 2);
    QVERIFY2(r.out.isEmpty(), r.out.constData()); // nothing but JSON ever goes to stdout
    QVERIFY2(QString::fromUtf8(r.err).contains(stderrFragment), r.err.constData());
  }

  // `collate --help` and `collate --list-presets` list every preset that --list-presets --json names,
  // each on one line with its meaning; every listed name is one --collator accepts.
  void collatePresetsListed_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("summary");
    Run r = runMaskscope({QStringLiteral("collate"), QStringLiteral("--list-presets"), QStringLiteral("--json")});
    QCOMPARE(r.status, 0);
    auto list = nlohmann::json::parse(r.out.toStdString());
    QVERIFY(list.size() >= 10);
    for (const auto& p : list)
      QTest::newRow(p["name"].get<std::string>().c_str()) << QString::fromStdString(p["name"].get<std::string>())
                                                          << QString::fromStdString(p["summary"].get<std::string>());
  }
  void collatePresetsListed() {
    QFETCH(QString, name);
    QFETCH(QString, summary);
    for (const QString& flag : {QStringLiteral("--help"), QStringLiteral("--list-presets")}) {
      Run r = runMaskscope({QStringLiteral("collate"), flag});
      QCOMPARE(r.status, 0);
      bool found = false;
      for (const QByteArray& line : r.out.split('\n')) {
        const QString l = QString::fromUtf8(line);
        found = found || (l.startsWith(QStringLiteral("  ") + name + QLatin1Char(' ')) && l.endsWith(summary));
      }
      QVERIFY2(found, qPrintable(flag + QStringLiteral(" lacks the line of ") + name));
    }
    Run r = runMaskscope({QStringLiteral("collate"), QStringLiteral("--tokenizer"), QStringLiteral("builtin:demo"),
                          QStringLiteral("--data"), QStringLiteral("builtin:demo"), QStringLiteral("--rows"),
                          QStringLiteral("0:2"), QStringLiteral("--collator"), name, QStringLiteral("--json")});
    QCOMPARE(r.status, 0);
  }

  // `loss` says "the masks do not change the result" only when the prompt is not graded either
  // (with hf-lm's labels = input_ids the prompt is most of the loss). Runs builtin:tiny (LibTorch).
  void lossVerdictNamesAGradedPrompt_data() {
    QTest::addColumn<QString>("collator");
    QTest::addColumn<bool>("promptGraded");
    QTest::newRow("replies-only") << QStringLiteral("default") << false;
    QTest::newRow("prompt-graded") << QStringLiteral("hf-lm") << true;
  }
  void lossVerdictNamesAGradedPrompt() {
    QFETCH(QString, collator);
    QFETCH(bool, promptGraded);
    Run r =
        runMaskscope({QStringLiteral("loss"), QStringLiteral("--model"), QStringLiteral("builtin:tiny"),
                      QStringLiteral("--data"), QStringLiteral("builtin:demo"), QStringLiteral("--rows"),
                      QStringLiteral("0:2"), QStringLiteral("--collator"), collator, QStringLiteral("--no-gradients")});
    QVERIFY2(r.status == 0 || r.status == 1, r.err.constData());
    const QString last = QString::fromUtf8(r.out.trimmed().split('\n').last());
    if (r.status == 1) {
      QVERIFY2(last.startsWith(QStringLiteral("the masks change the result")), qPrintable(last));
      QVERIFY(!promptGraded); // hf-lm's pads are masked: only a graded prompt is left to name
      return;
    }
    if (promptGraded) {
      QVERIFY2(!last.contains(QStringLiteral("the masks do not change the result")), qPrintable(last));
      QVERIFY2(last.contains(QStringLiteral("prompt positions are graded")), qPrintable(last));
      QVERIFY(last.contains(QStringLiteral("% of the loss")));
    } else {
      QCOMPARE(last, QStringLiteral("the masks do not change the result"));
    }
  }

  void version() {
    Run r = runMaskscope({QStringLiteral("--version")});
    QCOMPARE(r.status, 0);
    QVERIFY(r.out.startsWith("maskscope "));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
