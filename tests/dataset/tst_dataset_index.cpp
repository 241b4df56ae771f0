// The offset index (core/data/DatasetIndex): on byte-level fixtures (BOM, CRLF, blank lines, broken
// rows, a row longer than the row cache, a JSON list) each indexed row read back from the file
// equals the row DatasetReader parses from the whole file, and a file changed on disk is reported.
#include "core/data/DatasetIndex.h"
#include "core/util/Error.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace maskscope;

static std::string dataFile(const QString& name) {
  return QString(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/dataset/index/") + name).toStdString();
}

static std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Everything a view reads of a conversation, as one comparable string.
static QString describe(const Conversation& c) {
  QString s = QStringLiteral("line %1 item %2 row %3 plain %4 prompt %5|").arg(c.sourceLine).arg(c.sourceItem);
  s = s.arg(c.rowIndex).arg(int(c.plainText)).arg(c.promptMessageCount);
  for (const Message& m : c.messages)
    s += QString::fromStdString(m.role + ":" + m.content + ":" + m.extra.dump()) + QLatin1Char('|');
  return s + QString::fromStdString(c.plainPrompt + "|" + c.plainCompletion + "|" + c.tools.dump() + "|" +
                                    c.extraVariables.dump() + "|" + c.sourceFile);
}

class TestDatasetIndex : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void readBack_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("skipped");
    QTest::addColumn<qulonglong>("cacheBytes");
    QTest::newRow("bom-crlf-broken-rows") << "bom_crlf.jsonl" << 4 << 2 << (qulonglong(1) << 20);
    QTest::newRow("blank-lines") << "blank_lines.jsonl" << 4 << 2 << (qulonglong(1) << 20);
    QTest::newRow("row-longer-than-cache") << "bom_crlf.jsonl" << 4 << 2 << qulonglong(1024);
    QTest::newRow("json-list-bom-crlf") << "list.json" << 4 << 1 << (qulonglong(1) << 20);
  }
  // Read back in a scrambled order twice (cache misses, then hits), each row equals the full read's.
  void readBack() {
    QFETCH(QString, file);
    QFETCH(int, rows);
    QFETCH(int, skipped);
    QFETCH(qulonglong, cacheBytes);
    const std::string path = dataFile(file);
    std::vector<RowError> errors;
    const std::vector<Conversation> whole = readDataset(path, &errors);
    auto index = DatasetIndex::build(path, {}, size_t(cacheBytes));
    QCOMPARE(int(whole.size()), rows);
    QCOMPARE(int(index->rowCount()), rows);
    QCOMPARE(int(index->rowsSkipped()), skipped);
    QCOMPARE(index->errors().size(), errors.size());
    for (size_t e = 0; e < errors.size(); ++e) QCOMPARE(index->errors()[e].toString(), errors[e].toString());
    const std::string bytes = fileBytes(path);
    for (int pass = 0; pass < 2; ++pass)
      for (int k = 0; k < rows; ++k) {
        const size_t r = size_t((k * 3 + pass) % rows);
        QCOMPARE(describe(index->conversation(r)), describe(whole[r]));
        const IndexedRow& f = index->row(r);
        QCOMPARE(index->rowText(r), bytes.substr(size_t(f.offset), f.bytes));
        QCOMPARE(bytes[size_t(f.offset)], '{'); // the row starts where the index says
        QCOMPARE(int(f.messages), int(whole[r].messages.size()));
      }
    QStringList streamed; // forEachRow: the same rows, in order, from a sequential read
    index->forEachRow(1, [&](size_t r, const Conversation& c) {
      streamed << QString::number(r) + QLatin1Char(' ') + describe(c);
      return true;
    });
    QStringList expected;
    for (int r = 1; r < rows; ++r) expected << QString::number(r) + QLatin1Char(' ') + describe(whole[size_t(r)]);
    QCOMPARE(streamed, expected);
  }

  void facts() {
    auto index = DatasetIndex::build(dataFile(QStringLiteral("bom_crlf.jsonl")));
    QCOMPARE(int(index->row(0).roles), kRoleSystem | kRoleUser | kRoleAssistant);
    QCOMPARE(int(index->row(0).line), 1);
    QCOMPARE(int(index->row(0).chars), int(QByteArray("Be brief.Hello \u00e9t\u00e9 \u2603Hi.").size()));
    QCOMPARE(int(index->row(1).plainText), 1);
    QCOMPARE(int(index->row(1).line), 5);
    QCOMPARE(int(index->row(2).roles), kRoleUser | kRoleAssistant | kRoleTool);
    QVERIFY(index->row(2).bytes > 3000);
    QCOMPARE(int(index->row(3).line), 8);
  }

  void changedOnDisk() {
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("rows.jsonl"));
    QVERIFY(QFile::copy(QString::fromStdString(dataFile(QStringLiteral("blank_lines.jsonl"))), copy));
    auto index = DatasetIndex::build(copy.toStdString());
    QCOMPARE(index->changedOnDisk(), std::string());
    QVERIFY(!index->conversation(0).messages.empty()); // cached now
    {
      std::ofstream out(copy.toStdString(), std::ios::app);
      out << "{\"prompt\": \"a\", \"completion\": \"b\"}\n";
    }
    QVERIFY(index->changedOnDisk().find("changed on disk") != std::string::npos);
    try {
      index->conversation(0);
      QFAIL("a row of a changed file was shown");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find(copy.toStdString()) != std::string::npos, e.what());
    }
  }

  void cancel() {
    int calls = 0;
    QVERIFY_THROWS_EXCEPTION(Error, DatasetIndex::build(dataFile(QStringLiteral("bom_crlf.jsonl")), [&](double) {
                               ++calls;
                               return false;
                             }));
    QCOMPARE(calls, 1);
  }
};

QTEST_GUILESS_MAIN(TestDatasetIndex)
#include "tst_dataset_index.moc"
