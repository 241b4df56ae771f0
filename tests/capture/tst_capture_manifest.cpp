// capture.json is a stranger's file: each hostile manifest of tests/data/capture/hostile/ (written by
// tools/capture/make-hostile-manifests.py) is refused with an Error naming capture.json and the
// field, and the example capture (tools/capture/make-fixture.py) reads with its facts and options.
#include "core/capture/CaptureManifest.h"
#include "core/commands/CaptureInputs.h"
#include "core/util/Error.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace maskscope;

namespace {

const QString kData = QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/capture/");

// The case's capture.json beside a real batch file, in a scratch folder (so the fault is the only problem).
QString scratchCapture(const QTemporaryDir& dir, const QString& name) {
  const QString folder = dir.filePath(QStringLiteral("cases/") + name);
  QDir().mkpath(folder);
  QFile::copy(kData + QStringLiteral("hostile/") + name + QStringLiteral("/capture.json"),
              folder + QStringLiteral("/capture.json"));
  QFile::copy(kData + QStringLiteral("example/batch-0000.safetensors"),
              folder + QStringLiteral("/batch-0000.safetensors"));
  return folder;
}

} // namespace

class TestCaptureManifest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void hostileManifestIsRefused_data();
  void hostileManifestIsRefused();
  void oversizedManifestIsRefused();
  void exampleReadsItsFacts();
  void givenOptionsWin();
  void folderDetection();
};

void TestCaptureManifest::hostileManifestIsRefused_data() {
  QTest::addColumn<QString>("field");
  QTest::addColumn<QString>("message");
  QTest::newRow("path-traversal") << "batches[0].file"
                                  << "not a plain file name";
  QTest::newRow("missing-batch") << "batches[1].file"
                                 << "no file batch-0009.safetensors";
  QTest::newRow("not-safetensors") << "batches[0].file"
                                   << ".safetensors";
  QTest::newRow("foreign-format") << "format"
                                  << "not a maskscope capture manifest";
  QTest::newRow("newer-format") << "format"
                                << "newer than this maskscope reads";
  QTest::newRow("no-batches") << "batches"
                              << "non-empty list";
  QTest::newRow("pad-id-negative") << "tokenizer.pad_token_id"
                                   << "outside 0..2^31-1";
  QTest::newRow("pad-id-huge") << "tokenizer.pad_token_id"
                               << "outside 0..2^31-1";
  QTest::newRow("pad-id-string") << "tokenizer.pad_token_id"
                                 << "expected a token id";
  QTest::newRow("tokenizer-folder-escape") << "tokenizer.folder"
                                           << "not a plain file name";
  QTest::newRow("template-missing") << "chat_template_file"
                                    << "no file chat_template.jinja";
  QTest::newRow("trainer-class-number") << "trainer.class"
                                        << "expected a string";
  QTest::newRow("too-deep") << ""
                            << "nests deeper than the limit of 128";
  QTest::newRow("not-an-object") << "(top level)"
                                 << "JSON object";
  QTest::newRow("invalid-json") << ""
                                << "capture.json:";
}

void TestCaptureManifest::hostileManifestIsRefused() {
  QFETCH(QString, field);
  QFETCH(QString, message);
  QTemporaryDir dir;
  const QString folder = scratchCapture(dir, QString::fromLatin1(QTest::currentDataTag()));
  QVERIFY(isCaptureFolder(folder.toStdString()));
  try {
    readCaptureManifest(folder.toStdString());
    QFAIL("the manifest was accepted");
  } catch (const Error& e) {
    const QString what = QString::fromUtf8(e.what());
    QVERIFY2(what.contains(message), qPrintable(what));
    QVERIFY2(QString::fromStdString(e.where().file).endsWith(QStringLiteral("capture.json")), qPrintable(what));
    if (!field.isEmpty()) QCOMPARE(QString::fromStdString(e.where().field), field);
  }
}

void TestCaptureManifest::oversizedManifestIsRefused() {
  QTemporaryDir dir;
  QFile f(dir.filePath(QStringLiteral("capture.json")));
  QVERIFY(f.open(QIODevice::WriteOnly));
  const QByteArray pad(1 << 20, ' ');
  f.write("{\"format\": \"maskscope-capture/1\",");
  for (int i = 0; i < 17; ++i) f.write(pad); // 17 MiB of whitespace: valid JSON, over the cap
  f.write("\"batches\": []}");
  f.close();
  try {
    readCaptureManifest(dir.path().toStdString());
    QFAIL("a 17 MiB manifest was accepted");
  } catch (const Error& e) {
    QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("over the limit")), e.what());
  }
}

void TestCaptureManifest::exampleReadsItsFacts() {
  const std::string folder = QString(kData + QStringLiteral("example")).toStdString();
  const CaptureManifest m = readCaptureManifest(folder);
  QCOMPARE(m.batchFiles.size(), size_t(2));
  QVERIFY(m.batchFiles[1].ends_with("/batch-0001.safetensors"));
  QVERIFY(m.tokenizerFolder.ends_with("/tokenizer"));
  QVERIFY(m.templateFile.ends_with("/chat_template.jinja"));
  QCOMPARE(m.padTokenId, std::optional<int64_t>(5));
  QCOMPARE(m.eosTokenId, std::optional<int64_t>(5));
  QCOMPARE(QString::fromStdString(m.trainerClass), QStringLiteral("FakeSFTTrainer"));
  QCOMPARE(QString::fromStdString(m.collatorClass), QStringLiteral("DataCollatorForLanguageModeling"));
  const auto fw =
      std::vector<std::pair<std::string, std::string>>{{"transformers", "0.0.0+fake"}, {"trl", "0.0.0+fake"}};
  QCOMPARE(m.frameworks, fw);
  const std::string text = m.summaryText();
  QVERIFY2(text.find("  trainer: FakeSFTTrainer (fake_trainers)\n") != std::string::npos, text.c_str());
  QVERIFY2(text.find("frameworks: transformers 0.0.0+fake, trl 0.0.0+fake") != std::string::npos, text.c_str());
  QCOMPARE(
      QString::fromStdString(m.oneLine()),
      QStringLiteral("FakeSFTTrainer with DataCollatorForLanguageModeling (transformers 0.0.0+fake, trl 0.0.0+fake)"));
}

void TestCaptureManifest::givenOptionsWin() {
  const CaptureManifest m = readCaptureManifest(QString(kData + QStringLiteral("example")).toStdString());
  const CaptureChoice captured = captureChoice(m, "", "");
  QCOMPARE(captured.tokenizerSpec, m.tokenizerFolder);
  QCOMPARE(captured.templateSpec, m.templateFile);
  QVERIFY(captured.padIdFromCapture && captured.padId == std::optional<int64_t>(5));
  // Another tokenizer brings its own template; the trainer's pad id stays (the batches carry it).
  const CaptureChoice other = captureChoice(m, "builtin:demo", "");
  QCOMPARE(other.tokenizerSpec, std::string("builtin:demo"));
  QVERIFY(other.templateSpec.empty() && !other.tokenizerFromCapture && !other.templateFromCapture);
  QVERIFY(other.padIdFromCapture && other.padId == std::optional<int64_t>(5));
  const CaptureChoice given = captureChoice(m, "", "llama3", int64_t(0));
  QCOMPARE(given.tokenizerSpec, m.tokenizerFolder);
  QCOMPARE(given.templateSpec, std::string("llama3"));
  QVERIFY(given.padId == std::optional<int64_t>(0) && !given.padIdFromCapture);
}

void TestCaptureManifest::folderDetection() {
  const std::string example = QString(kData + QStringLiteral("example")).toStdString();
  QVERIFY(isCaptureFolder(example));
  QVERIFY(!isCaptureFolder(example + "/capture.json")); // the file is not the folder
  QVERIFY(!isCaptureFolder(QStringLiteral(MASKSCOPE_TEST_DATA_DIR).toStdString()));
  QCOMPARE(captureFolderOf(example + "/batch-0001.safetensors"), example);
  QVERIFY(captureFolderOf(example + "/tokenizer/tokenizer.model").empty());
}

QTEST_GUILESS_MAIN(TestCaptureManifest)
#include "tst_capture_manifest.moc"
