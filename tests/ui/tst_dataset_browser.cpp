// The dataset browser over an offset-indexed dataset, through MainWindow's public API: the search
// (a pass over the file in a worker) and the message-count filter (the index's facts) leave exactly
// the rows a full read of the file says they should, and a file changed on disk is reported.
#include "core/data/DatasetReader.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"

#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <fstream>

using namespace maskscope;

namespace {

QString fixture(const QString& name) { return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/") + name; }

// The oracle: every row parsed from the whole file, filtered as the browser documents it.
std::vector<int> expectedRows(const QString& file, const QString& text, int minMessages) {
  const std::vector<Conversation> rows = readDataset(file.toStdString());
  std::vector<int> out;
  for (int r = 0; r < int(rows.size()); ++r) {
    const Conversation& c = rows[size_t(r)];
    auto has = [&](const std::string& s) { return QString::fromStdString(s).contains(text, Qt::CaseInsensitive); };
    bool match = text.isEmpty() || (c.plainText && (has(c.plainPrompt) || has(c.plainCompletion)));
    for (const Message& m : c.messages) match = match || has(m.content);
    if (match && int(c.messages.size()) >= minMessages) out.push_back(r);
  }
  return out;
}

} // namespace

class TestDatasetBrowser : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void filters_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("minMessages");
    QTest::addColumn<int>("expectedCount");
    QTest::newRow("search-one-row") << "ui/review-small.jsonl"
                                    << "fruit" << 0 << 1;
    QTest::newRow("search-case-insensitive") << "ui/review-small.jsonl"
                                             << "NAME A" << 0 << 3;
    QTest::newRow("search-no-row") << "ui/review-small.jsonl"
                                   << "zebra" << 0 << 0;
    QTest::newRow("messages-filter") << "ui/review-small.jsonl"
                                     << "" << 3 << 1;
    QTest::newRow("search-and-messages") << "ui/review-small.jsonl"
                                         << "colour" << 2 << 2;
    QTest::newRow("search-plain-completion-bom-crlf") << "dataset/index/bom_crlf.jsonl"
                                                      << "2+2" << 0 << 1;
    QTest::newRow("search-non-ascii-case") << "dataset/index/bom_crlf.jsonl"
                                           << "\u00c9T\u00c9" << 0 << 1;
    QTest::newRow("search-unicode-escape") << "dataset/index/escapes.jsonl"
                                           << "CAF\u00c9" << 0 << 2;
    QTest::newRow("search-escaped-quote") << "dataset/index/escapes.jsonl"
                                          << "\"A/B\"" << 0 << 1;
    QTest::newRow("search-long-row") << "dataset/index/bom_crlf.jsonl"
                                     << "xxxxxxxx" << 3 << 1;
  }
  void filters() {
    QFETCH(QString, file);
    QFETCH(QString, text);
    QFETCH(int, minMessages);
    QFETCH(int, expectedCount);
    Session s;
    QVERIFY(s.openDataset(fixture(file)));
    QVERIFY(s.datasetIndex()); // the rows are indexed, not held
    MainWindow w(&s);
    w.minMessagesBox()->setValue(minMessages);
    w.searchBox()->setText(text);
    QTRY_VERIFY(!w.searchPending());
    const std::vector<int> expected = expectedRows(fixture(file), text, minMessages);
    QCOMPARE(int(expected.size()), expectedCount);
    QTRY_COMPARE(w.visibleRows(), expected);
    QCOMPARE(w.conversationList()->model()->rowCount(), expectedCount);
    // Clearing the filters shows every row again.
    w.searchBox()->clear();
    w.minMessagesBox()->setValue(0);
    QTRY_COMPARE(w.visibleRowCount(), s.rowCount());
  }

  void changedOnDiskIsReported() {
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("rows.jsonl"));
    QVERIFY(QFile::copy(fixture(QStringLiteral("ui/review-small.jsonl")), copy));
    Session s;
    QVERIFY(s.openDataset(copy));
    MainWindow w(&s);
    QVERIFY(s.datasetChangedOnDisk().isEmpty());
    QSignalSpy errors(&s, &Session::errorOccurred);
    {
      std::ofstream out(copy.toStdString(), std::ios::app);
      out << "{\"prompt\": \"a\", \"completion\": \"b\"}\n";
    }
    QVERIFY(s.datasetChangedOnDisk().contains(QStringLiteral("changed on disk")));
    s.selectRow(3); // its batch reads rows back: refused, and said
    QTRY_VERIFY(!errors.isEmpty());
    QVERIFY2(errors.last().first().toString().contains(copy), qPrintable(errors.last().first().toString()));
    // The search says so too instead of searching other bytes.
    w.searchBox()->setText(QStringLiteral("fruit"));
    QTRY_VERIFY(!w.searchPending());
    QCOMPARE(w.visibleRowCount(), s.rowCount()); // the search criterion was not applied
  }
};

QTEST_MAIN(TestDatasetBrowser)
#include "tst_dataset_browser.moc"
