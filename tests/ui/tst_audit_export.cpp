// File > Export audit report, off screen: the page the app writes off the UI thread for the open
// dataset is the page `lint --report` writes with the same settings, byte for byte (the reproduce line
// names each its own output file); Cancel writes nothing; a batch dump is refused with the reason.
#include "core/commands/CommandIO.h"
#include "core/commands/LintCommand.h"
#include "core/util/FileReading.h"
#include "ui/shell/AuditReportRunner.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"

#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <sstream>

using namespace maskscope;

namespace {

// The page with every occurrence of one output file's path replaced by another's.
std::string renamed(std::string html, const std::string& from, const std::string& to) {
  for (size_t at = html.find(from); at != std::string::npos; at = html.find(from, at + to.size()))
    html.replace(at, from.size(), to);
  return html;
}

std::string cliPage(const Session& s, const std::string& path) {
  LintArgs a;
  a.input = s.datasetSpec().toStdString();
  a.tokenizerSpec = s.tokenizerSpec().isEmpty() ? "builtin:demo" : s.tokenizerSpec().toStdString();
  a.templateSpec = s.templateSpec().toStdString();
  a.collatorSpec = s.collatorSpec().toStdString();
  a.microBatch = s.batchSize();
  a.reportPath = path;
  std::ostringstream out, err;
  CommandIO io{out, err, true, false};
  runCommand(io, [&] { return runLint(a, io); });
  return readFileCapped(path);
}

} // namespace

class TestAuditExport : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void samePageAsCli_data();
  void samePageAsCli();
  void cancelWritesNothing();
  void refusesBatchDump();
};

void TestAuditExport::samePageAsCli_data() {
  QTest::addColumn<QString>("data");
  QTest::addColumn<QString>("collator");
  QTest::addColumn<QString>("verdict");
  QTest::newRow("demo_default") << QStringLiteral("builtin:demo") << QStringLiteral("default")
                                << QStringLiteral("review");
  QTest::newRow("demo_buggy_pad_is_eos") << QStringLiteral("builtin:demo") << QStringLiteral("buggy-pad-is-eos")
                                         << QStringLiteral("reject");
  QTest::newRow("audit_fixture") << QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/lint/audit/audit.jsonl")
                                 << QStringLiteral("trl-assistant-only") << QStringLiteral("reject");
}

void TestAuditExport::samePageAsCli() {
  QFETCH(QString, data);
  QFETCH(QString, collator);
  QFETCH(QString, verdict);
  Session s;
  QVERIFY(s.openDataset(data));
  QVERIFY(s.setCollator(collator));
  MainWindow w(&s);
  QTemporaryDir dir;
  const QString path = dir.path() + QStringLiteral("/app.html");
  QString err;
  QVERIFY2(w.exportAuditReport(path, &err), qPrintable(err));
  QVERIFY(w.auditRunner() && w.auditProgressDialog());
  QSignalSpy done(w.auditRunner(), &AuditReportRunner::finished);
  QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
  QCOMPARE(done[0][0].toBool(), true);
  QCOMPARE(done[0][1].toString(), verdict);
  QTRY_VERIFY(!w.auditProgressDialog()); // closed when done
  const std::string app = readFileCapped(path.toStdString());
  const std::string cliPath = dir.path().toStdString() + "/cli.html";
  const std::string cli = cliPage(s, cliPath);
  QVERIFY(app.find("<footer>") != std::string::npos);
  QVERIFY(app.find("--report " + path.toStdString() + "</code>") != std::string::npos);
  QVERIFY(app == renamed(cli, cliPath, path.toStdString()));
  QVERIFY(app.find("--collator " + collator.toStdString()) != std::string::npos);
}

void TestAuditExport::cancelWritesNothing() {
  Session s;
  QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
  MainWindow w(&s);
  QTemporaryDir dir;
  const QString path = dir.path() + QStringLiteral("/cancelled.html");
  QVERIFY(w.exportAuditReport(path));
  QSignalSpy done(w.auditRunner(), &AuditReportRunner::finished);
  QPushButton* cancel = w.auditProgressDialog()->findChild<QPushButton*>();
  QVERIFY(cancel);
  cancel->click(); // the dialog's Cancel button
  QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
  QCOMPARE(done[0][0].toBool(), false);
  QCOMPARE(done[0][1].toString(), QStringLiteral("cancelled"));
  QVERIFY(!std::filesystem::exists(path.toStdString()));
}

void TestAuditExport::refusesBatchDump() {
  Session s;
  QVERIFY(s.openBatchDump(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/lint/naive-packing-pad.json")));
  QVERIFY(s.isBatchDump());
  MainWindow w(&s);
  QString err;
  QVERIFY(!w.exportAuditReport(QDir::tempPath() + QStringLiteral("/never.html"), &err));
  QVERIFY2(err.contains(QStringLiteral("batch dump")), qPrintable(err));
}

QTEST_MAIN(TestAuditExport)
#include "tst_audit_export.moc"
