// The app on a capture folder (docs/capture.md), off screen at 1024 x 768: the captured tokenizer and
// chat template decode the batch, the trainer's pad id is the dump's, and the summary line names the
// trainer, collator and versions; a batch file inside the folder opens with the manifest too; another
// file forgets the capture; a hostile manifest is reported, not opened. MASKSCOPE_SCREENSHOT_DIR, when
// set, receives the window as capture-window.png.
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"

#include <QFileInfo>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

using namespace maskscope;

namespace {
const QString kExample = QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/capture/example");
const QString kNamed = QStringLiteral("FakeSFTTrainer with DataCollatorForLanguageModeling (transformers 0.0.0+fake");
} // namespace

class TestCaptureApp : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void opensCapture_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("batch");
    QTest::newRow("folder") << kExample << QStringLiteral("batch-0000.safetensors");
    QTest::newRow("batch-file-inside") << kExample + QStringLiteral("/batch-0001.safetensors")
                                       << QStringLiteral("batch-0001.safetensors");
  }

  void opensCapture() {
    QFETCH(QString, path);
    QFETCH(QString, batch);
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.resize(1024, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(path));
    QVERIFY(s.isBatchDump());
    QCOMPARE(QFileInfo(s.datasetSpec()).fileName(), batch);
    QVERIFY2(s.tokenizerSpec().endsWith(QStringLiteral("/capture/example/tokenizer")), qPrintable(s.tokenizerSpec()));
    QVERIFY2(s.templateSpec().endsWith(QStringLiteral("/capture/example/chat_template.jinja")),
             qPrintable(s.templateSpec()));
    QVERIFY(s.decodesDump());
    QCOMPARE(s.dumpBatch().padTokenId, std::optional<int64_t>(5)); // the trainer's pad: <|im_end|>
    QTRY_VERIFY2(w.summaryLabel()->text().contains(kNamed), qPrintable(w.summaryLabel()->text()));
    const QString dir = qEnvironmentVariable("MASKSCOPE_SCREENSHOT_DIR");
    if (!dir.isEmpty())
      w.grab().save(dir + QStringLiteral("/capture-window-%1.png").arg(QLatin1String(QTest::currentDataTag())));
    // Another file: the capture is forgotten, and so is its line.
    QVERIFY(w.openPath(QStringLiteral("builtin:demo")));
    QTRY_VERIFY(!w.summaryLabel()->text().contains(QStringLiteral("Captured")));
  }

  void hostileCaptureIsReported() {
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    QSignalSpy errors(&s, &Session::errorOccurred);
    QVERIFY(!s.openPath(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/capture/hostile/path-traversal")));
    QCOMPARE(errors.count(), 1);
    const QString message = errors.front().front().toString();
    QVERIFY2(message.contains(QStringLiteral("capture.json")) && message.contains(QStringLiteral("batches[0].file")),
             qPrintable(message));
    QVERIFY(!s.isBatchDump()); // the demo stays open
  }
};

QTEST_MAIN(TestCaptureApp)
#include "tst_capture_app.moc"
