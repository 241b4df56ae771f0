// Replays each framework's own unit-test inputs through the same command a user runs
// (`maskscope collate --data ROWS --collator SPEC --json [...]`) and asserts the tensors the
// upstream test expects. One case file per upstream test under tests/data/frameworks/<group>/:
//   {"upstream": "trl v1.10 tests/test_sft_trainer.py::TestX::test_y", "spec": {...}, "rows": [...],
//    "args": [extra CLI args], "expected": {the dict} | "expected_rows": [prepared rows],
//    "compare_keys": [keys compared when the upstream test checks only some], "exit": N,
//    "stderr_contains": [...], "expect_all_ignored": [keys whose every value must be -100],
//    "expected_shapes": {key: [dims]} where the upstream test asserts shapes only}
// The spec and rows are written to files first: the command reads them as a user's files.
#include "RunMaskscope.h"

#include <QDir>
#include <QFileInfo>
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

// c[key], or an empty value when the case does not set it (no temporaries to iterate).
const ojson& field(const ojson& c, const char* key) {
  static const ojson none;
  auto it = c.find(key);
  return it == c.end() ? none : *it;
}

void writeFile(const QString& path, const std::string& text) {
  std::ofstream out(path.toStdString());
  out << text;
}

} // namespace

class TestFrameworkReplays : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void replay_data() {
    QTest::addColumn<QString>("file");
    const QDir root(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/frameworks"));
    // Folders holding other tests' data, not replay cases: the cases.json lists of test_upstream_cases
    // (LLaMA-Factory's and torchtune's goldens) and the lint inputs.
    for (const QString& group : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
      if (group == QLatin1String("lint") || QFileInfo::exists(root.filePath(group + QStringLiteral("/cases.json"))))
        continue;
      const QDir dir(root.filePath(group));
      for (const QString& f : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(group + QLatin1Char('/') + f.chopped(5))) << dir.filePath(f);
    }
  }

  void replay() {
    QFETCH(QString, file);
    const ojson c = readCase(file);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    std::string rows;
    for (const auto& r : c["rows"]) rows += r.dump() + "\n";
    writeFile(tmp.filePath(QStringLiteral("rows.jsonl")), rows);
    writeFile(tmp.filePath(QStringLiteral("spec.json")), c["spec"].dump());
    QStringList args = {QStringLiteral("collate"),
                        QStringLiteral("--data"),
                        tmp.filePath(QStringLiteral("rows.jsonl")),
                        QStringLiteral("--collator"),
                        tmp.filePath(QStringLiteral("spec.json")),
                        QStringLiteral("--json")};
    for (const auto& a : field(c, "args")) {
      QString s = QString::fromStdString(a.get<std::string>());
      s.replace(QStringLiteral("$TOKENIZERS"), QStringLiteral(MASKSCOPE_TOKENIZER_CACHE));
      args << s;
    }
    const Run run = runMaskscope(args);
    const int exitWanted = c.value("exit", 0);
    QVERIFY2(run.status == exitWanted,
             qPrintable(QStringLiteral("exit %1, stderr: %2").arg(run.status).arg(QString::fromUtf8(run.err))));
    for (const auto& s : field(c, "stderr_contains"))
      QVERIFY2(run.err.contains(QByteArray::fromStdString(s.get<std::string>())),
               qPrintable(QStringLiteral("stderr lacks \"") + QString::fromStdString(s.get<std::string>()) +
                          QStringLiteral("\": ") + QString::fromUtf8(run.err)));
    if (exitWanted != 0) return;
    for (const auto& k : field(c, "expect_all_ignored")) { // "all -100", as the upstream test asserts
      const ojson got = ojson::parse(run.out.toStdString());
      const ojson& grid = got[k.get<std::string>()];
      QVERIFY(!grid.empty());
      for (const auto& row : grid)
        for (const auto& v : row) QCOMPARE(v.get<int64_t>(), int64_t(-100));
    }
    for (const auto& [key, shape] : field(c, "expected_shapes").items()) { // shape-only asserts
      const ojson got = ojson::parse(run.out.toStdString());
      QVERIFY2(got.contains(key), key.c_str());
      ojson dims = ojson::array();
      const ojson* v = &got[key];
      while (v->is_array()) {
        dims.push_back(v->size());
        if (v->empty()) break;
        v = &(*v)[0];
      }
      QCOMPARE(QString::fromStdString(dims.dump()), QString::fromStdString(shape.dump()));
    }
    if (!c.contains("expected") && !c.contains("expected_rows")) return;
    const ojson& keys = field(c, "compare_keys");
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
