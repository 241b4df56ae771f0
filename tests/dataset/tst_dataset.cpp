// Dataset readers: every documented row shape (docs/cli.md) maps to the expected messages; malformed rows are
// reported with their line and reason and the good rows around them are still read.
#include "core/data/DatasetReader.h"
#include "core/util/Error.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace maskscope;

static std::string dataFile(const char* name) { return std::string(MASKSCOPE_TEST_DATA_DIR "/dataset/") + name; }

static std::string roles(const Conversation& c) {
  std::string s;
  for (const auto& m : c.messages) s += (s.empty() ? "" : ",") + m.role;
  return s;
}

class TestDataset : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void shapes_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("row");
    QTest::addColumn<QString>("expectedRoles");
    QTest::addColumn<QString>("lastContent");
    QTest::addColumn<int>("promptMessages");
    QTest::newRow("messages-system") << "messages.jsonl" << 3 << 0 << "system,user,assistant"
                                     << "Hello!" << -1;
    QTest::newRow("messages-multi-turn") << "messages.jsonl" << 3 << 1 << "user,assistant,user,assistant"
                                         << "6" << -1;
    QTest::newRow("messages-content-parts") << "messages.jsonl" << 3 << 2 << "user,assistant"
                                            << "ok" << -1;
    QTest::newRow("prompt-completion-lists") << "prompt_completion.jsonl" << 2 << 1 << "user,assistant"
                                             << "Blue." << 1;
    QTest::newRow("sharegpt") << "sharegpt.json" << 2 << 0 << "user,assistant"
                              << "Hello" << -1;
    QTest::newRow("sharegpt-system") << "sharegpt.json" << 2 << 1 << "system,user,assistant"
                                     << "A" << -1;
    QTest::newRow("alpaca-input") << "alpaca.json" << 2 << 0 << "user,assistant"
                                  << "5" << 1;
    QTest::newRow("alpaca-empty-input") << "alpaca.json" << 2 << 1 << "user,assistant"
                                        << "hi" << 1;
  }
  void shapes() {
    QFETCH(QString, file);
    QFETCH(int, rows);
    QFETCH(int, row);
    QFETCH(QString, expectedRoles);
    QFETCH(QString, lastContent);
    QFETCH(int, promptMessages);
    std::vector<RowError> errors;
    auto all = readDataset(dataFile(file.toUtf8().constData()), &errors);
    QCOMPARE(int(all.size()), rows);
    QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().toString().c_str());
    const Conversation& c = all[size_t(row)];
    QCOMPARE(QString::fromStdString(roles(c)), expectedRoles);
    QCOMPARE(QString::fromStdString(c.messages.back().content), lastContent);
    QCOMPARE(c.promptMessageCount, promptMessages);
    QCOMPARE(c.rowIndex, long(row));
  }

  void plainPromptCompletion() {
    auto rows = readDataset(dataFile("prompt_completion.jsonl"));
    QVERIFY(rows[0].plainText);
    QCOMPARE(rows[0].plainPrompt, std::string("The sky is"));
    QCOMPARE(rows[0].plainCompletion, std::string(" blue."));
  }

  void alpacaJoinsInput() {
    auto rows = readDataset(dataFile("alpaca.json"));
    QCOMPARE(rows[0].messages[0].content, std::string("Add the numbers.\n\n2 and 3"));
    QCOMPARE(rows[1].messages[0].content, std::string("Say hi."));
  }

  void malformedRowsAreReportedAndSkipped_data() {
    QTest::addColumn<int>("errorIndex");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("reasonFragment");
    QTest::newRow("truncated-json") << 0 << 2 << "invalid JSON";
    QTest::newRow("missing-role") << 1 << 3 << "no \"role\"";
    QTest::newRow("non-string-content") << 2 << 4 << "not a string";
    QTest::newRow("unknown-shape") << 3 << 5 << "has none of";
    QTest::newRow("not-an-object") << 4 << 6 << "not a JSON object";
    QTest::newRow("invalid-utf8") << 5 << 7 << "invalid JSON";
  }
  void malformedRowsAreReportedAndSkipped() {
    QFETCH(int, errorIndex);
    QFETCH(int, line);
    QFETCH(QString, reasonFragment);
    std::vector<RowError> errors;
    auto rows = readDataset(dataFile("malformed.jsonl"), &errors);
    QCOMPARE(int(rows.size()), 2); // the first and the last line are good
    QCOMPARE(rows[1].messages.back().content, std::string("good row"));
    QCOMPARE(rows[1].sourceLine, 8L);
    QCOMPARE(int(errors.size()), 6);
    const RowError& e = errors[size_t(errorIndex)];
    QCOMPARE(e.line, long(line));
    QVERIFY2(QString::fromStdString(e.reason).contains(reasonFragment), e.reason.c_str());
  }

  void truncatedJsonListKeepsEarlierRows() {
    std::vector<RowError> errors;
    auto rows = readDataset(dataFile("truncated_list.json"), &errors);
    QCOMPARE(int(rows.size()), 1);
    QCOMPARE(int(errors.size()), 1);
    QCOMPARE(errors[0].line, 2L);
  }

  void builtinDemo() {
    std::vector<RowError> errors;
    auto rows = readDataset("builtin:demo", &errors);
    QVERIFY(rows.size() >= 50);
    QVERIFY(errors.empty());
    int multiTurn = 0, withSystem = 0;
    for (const auto& c : rows) {
      int assistants = 0;
      for (const auto& m : c.messages) assistants += m.role == "assistant";
      multiTurn += assistants > 1;
      withSystem += c.messages.front().role == "system";
    }
    QVERIFY(multiTurn >= 5);
    QVERIFY(withSystem >= 5);
  }

  void toolsKeepKeyOrder() {
    // Templates print tools with tojson; Python keeps the file's key order, so must we.
    auto rows = readDataset(dataFile("tools_key_order.jsonl"));
    QCOMPARE(rows.size(), size_t(1));
    const std::string dumped = rows[0].tools.dump();
    QVERIFY2(dumped.find("{\"type\":\"function\",\"function\":{\"name\"") == 1, dumped.c_str());
  }

  void readRowByIndex() {
    Conversation c = readDatasetRow(dataFile("messages.jsonl"), 1);
    QCOMPARE(c.messages.size(), size_t(4));
    QVERIFY_THROWS_EXCEPTION(Error, readDatasetRow(dataFile("messages.jsonl"), 3));
    QVERIFY_THROWS_EXCEPTION(Error, DatasetReader("/no/such/file.jsonl"));
  }

  void streamsLargeFileInConstantMemory() {
    // 20,000 rows through the streaming reader; progress reaches 1 and every row is counted.
    QTemporaryDir dir;
    std::string path = dir.filePath(QStringLiteral("big.jsonl")).toStdString();
    {
      std::ofstream out(path);
      for (int i = 0; i < 20000; ++i)
        out << "{\"messages\": [{\"role\": \"user\", \"content\": \"question " << i
            << "\"}, {\"role\": \"assistant\", \"content\": \"answer\"}]}"
            << "\n";
    }
    DatasetReader reader(path);
    Conversation c;
    long n = 0;
    while (reader.next(c)) ++n;
    QCOMPARE(n, 20000L);
    QCOMPARE(reader.progress(), 1.0);
  }
};

QTEST_GUILESS_MAIN(TestDataset)
#include "tst_dataset.moc"
