// Replays each framework's own unit-test inputs through the same command a user runs
// (`maskscope collate --data ROWS --collator SPEC --json [...]`) and asserts the tensors the
// upstream test expects. One case file per upstream test under tests/data/frameworks/<group>/:
//   {"upstream": "trl v1.10 tests/test_sft_trainer.py::TestX::test_y", "spec": {...}, "rows": [...],
//    "args": [extra CLI args], "expected": {the dict} | "expected_rows": [prepared rows],
//    "compare_keys": [keys compared when the upstream test checks only some], "exit": N,
//    "stderr_contains": [...], "expect_all_ignored": [keys whose every value must be -100]}
// The spec and rows are written to files first: the command reads them as a user's files.
#include "RunMaskscope.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>

using ojson = nlohmann::ordered_json;

namespace {

ojson readCase(const QString& path) {
  std::ifstream in(path.toStdString());
  return ojson::parse(in);
}

ojson subset(const ojson& row, const ojson& keys) {
  if (keys.is_null()) return row;
  ojson out = ojson::object();
  for (const auto& k : keys)
    if (row.contains(k.get<std::string>())) out[k.get<std::string>()] = row[k.get<std::string>()];
  return out;
}

void writeFile(const QString& path, const std::string& text) {
  std::ofstream out(path.toStdString());
  out << text;
}

} // namespace

class TestFrameworkReplays : public QObject {
  Q_OBJECT

private slots:
  void replay_data() {
    QTest::addColumn<QString>("file");
    const QDir root(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/frameworks"));
    for (const QString& group : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
      const QDir dir(root.filePath(group));
      for (const QString& f : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(group + "/" + f.chopped(5))) << dir.filePath(f);
    }
  }

  void replay() {
    QFETCH(QString, file);
    const ojson c = readCase(file);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    std::string rows;
    for (const auto& r : c["rows"]) rows += r.dump() + "\n";
    writeFile(tmp.filePath("rows.jsonl"), rows);
    writeFile(tmp.filePath("spec.json"), c["spec"].dump());
    QStringList args = {"collate", "--data", tmp.filePath("rows.jsonl"), "--collator", tmp.filePath("spec.json"),
                        "--json"};
    for (const auto& a : c.value("args", ojson::array())) {
      QString s = QString::fromStdString(a.get<std::string>());
      s.replace(QStringLiteral("$TOKENIZERS"), QStringLiteral(MASKSCOPE_TOKENIZER_CACHE));
      args << s;
    }
    const Run run = runMaskscope(args);
    const int exitWanted = c.value("exit", 0);
    QVERIFY2(run.status == exitWanted,
             qPrintable(QString("exit %1, stderr: %2").arg(run.status).arg(QString(run.err))));
    for (const auto& s : c.value("stderr_contains", ojson::array()))
      QVERIFY2(run.err.contains(QByteArray::fromStdString(s.get<std::string>())),
               qPrintable("stderr lacks \"" + QString::fromStdString(s.get<std::string>()) + "\": " + run.err));
    if (exitWanted != 0) return;
    for (const auto& k : c.value("expect_all_ignored", ojson::array())) { // "all -100", as the upstream test asserts
      const ojson got = ojson::parse(run.out.toStdString());
      const ojson& grid = got[k.get<std::string>()];
      QVERIFY(!grid.empty());
      for (const auto& row : grid)
        for (const auto& v : row) QCOMPARE(v.get<int64_t>(), int64_t(-100));
    }
    if (!c.contains("expected") && !c.contains("expected_rows")) return;
    const ojson keys = c.value("compare_keys", ojson());
    if (c.contains("expected")) {
      const ojson got = ojson::parse(run.out.toStdString());
      QCOMPARE(QString::fromStdString(subset(got, keys).dump()), QString::fromStdString(c["expected"].dump()));
      return;
    }
    const QList<QByteArray> lines = run.out.trimmed().split('\n');
    const ojson& want = c["expected_rows"];
    QCOMPARE(qsizetype(lines.size()), qsizetype(want.size()));
    for (size_t i = 0; i < want.size(); ++i)
      QCOMPARE(QString::fromStdString(subset(ojson::parse(lines[qsizetype(i)].toStdString()), keys).dump()),
               QString::fromStdString(want[i].dump()));
  }
};

QTEST_GUILESS_MAIN(TestFrameworkReplays)
#include "tst_framework_replays.moc"
