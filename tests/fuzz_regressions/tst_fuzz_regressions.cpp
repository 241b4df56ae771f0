// Replays the fuzz corpora in tests/data/fuzz/<target>/ through the parsers of untrusted input.
// Each file must end in a maskscope::Error or a clean result: a crash or sanitizer report fails the run.
#include "tests/fuzz/FuzzTargets.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace maskscope;

class TestFuzzRegressions : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void corpusCoversEveryTarget() {
    // A missing or empty folder would make the replay silently test nothing.
    for (const char* target : kTargets) {
      QDir dir(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/fuzz/") + QLatin1String(target));
      QVERIFY2(!dir.entryList(QDir::Files).isEmpty(), target);
    }
  }

  void replay_data() {
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("file");
    for (const char* target : kTargets) {
      QDir dir(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/fuzz/") + QLatin1String(target));
      for (const QString& name : dir.entryList(QDir::Files, QDir::Name)) {
        const QString row = QLatin1String(target) + QLatin1Char('/') + name;
        QTest::newRow(row.toUtf8().constData()) << QString::fromLatin1(target) << dir.filePath(name);
      }
    }
  }

  void replay() {
    QFETCH(QString, target);
    QFETCH(QString, file);
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray raw = f.readAll();
    const std::string bytes(raw.constData(), size_t(raw.size()));
    if (target == QLatin1String("dataset"))
      fuzz::runDataset(bytes);
    else if (target == QLatin1String("tokenizer_json"))
      fuzz::runTokenizerJson(bytes);
    else if (target == QLatin1String("template"))
      fuzz::runTemplate(bytes);
    else if (target == QLatin1String("safetensors"))
      fuzz::runSafetensors(bytes);
    else if (target == QLatin1String("batch_json"))
      fuzz::runBatchJson(bytes);
    else if (target == QLatin1String("collator_spec"))
      fuzz::runCollatorSpec(bytes);
    else if (target == QLatin1String("tokenizer_encode"))
      fuzz::runTokenizerEncodeInput(bytes);
    else if (target == QLatin1String("dataset_rows"))
      fuzz::runDatasetRows(bytes);
    else if (target == QLatin1String("batch_dump"))
      fuzz::runBatchDump(bytes);
    else if (target == QLatin1String("sentencepiece_model"))
      fuzz::runSentencePieceModel(bytes);
    else
      QFAIL("unknown fuzz target folder");
  }

private:
  static constexpr const char* kTargets[] = {"dataset",    "tokenizer_json",     "template",         "safetensors",
                                             "batch_json", "collator_spec",      "tokenizer_encode", "dataset_rows",
                                             "batch_dump", "sentencepiece_model"};
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
