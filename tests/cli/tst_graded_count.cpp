// "Graded" has one definition (core/mask/RowFacts.h, docs/cli.md "Graded positions": labels[t] != -100
// with t >= 1). Property: for every collator preset (`collate --list-presets`) and every collator of the
// framework catalogue (core/frameworks: each framework x version x collator, default options), on the
// same rows, the graded count is the same wherever maskscope prints one: `collate` text (per-row counts)
// and `--table --json`, `lint --json` (summary.graded.total), `snapshot --json` (batch.graded: the
// app's Session), `loss --json` (graded_count, builtin:tiny) and an independent count of the labels
// `collate --json` returns (t >= 1; torchtune's pre-shifted labels: every position). Data:
// tests/data/cli/graded-count/ (chat, prompt/completion and pre-tokenized rows; builtin:demo).
#include "RunMaskscope.h"
#include "core/frameworks/Framework.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

namespace {

QString dataFile(const char* name) {
  return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/cli/graded-count/") + QString::fromLatin1(name);
}

const QString kTokenizer = QStringLiteral("builtin:demo");
const char* const kDataFiles[] = {"chat.jsonl", "prompt-completion.jsonl", "ids.jsonl"};

QStringList inputsOf(const QString& data, const QString& collator) {
  return {QStringLiteral("--data"),      data,      QStringLiteral("--collator"), collator,
          QStringLiteral("--tokenizer"), kTokenizer};
}

nlohmann::json parsed(const QByteArray& out) { return nlohmann::json::parse(out.toStdString(), nullptr, false); }

// The independent count: labels of the returned batch that reach the loss. Presets and most frameworks
// follow the Hugging Face convention (the model shifts, so position 0 never counts); torchtune's labels
// are pre-shifted (labels[t] is the target of logits[t]), so every one of its positions counts.
long referenceCount(const nlohmann::json& batch, bool preShifted) {
  const nlohmann::json& labels = batch.at("labels");
  const bool twoD = !labels.empty() && labels.front().is_array();
  long n = 0;
  auto count = [&](const nlohmann::json& row) {
    for (size_t t = preShifted ? 0 : 1; t < row.size(); ++t) n += row[t].get<long>() != -100;
  };
  if (twoD)
    for (const auto& row : labels) count(row);
  else
    count(labels);
  return n;
}

// The first data file the collator runs on, with a batch holding labels; empty when none does.
QString runnableData(const QString& collator) {
  for (const char* f : kDataFiles) {
    const Run r = runMaskscope(QStringList{QStringLiteral("collate")} << inputsOf(dataFile(f), collator)
                                                                      << QStringLiteral("--json"));
    if (r.status != 0) continue;
    const nlohmann::json j = parsed(r.out.split('\n').front());
    if (!j.is_discarded() && j.is_object() && j.contains("labels") && j.contains("input_ids")) return dataFile(f);
  }
  return {};
}

std::set<std::string> gUnrunnable; // framework specs no data file here runs (named in the log)
std::set<std::string> gFrameworksCovered;

} // namespace

class TestGradedCount : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void oneCountEverywhere_data();
  void oneCountEverywhere();
  void everyFrameworkCovered();
};

void TestGradedCount::oneCountEverywhere_data() {
  QTest::addColumn<QString>("data");
  QTest::addColumn<QString>("collator");
  QTest::addColumn<bool>("preShifted");
  const Run list =
      runMaskscope({QStringLiteral("collate"), QStringLiteral("--list-presets"), QStringLiteral("--json")});
  QCOMPARE(list.status, 0);
  const nlohmann::json presets = parsed(list.out);
  QVERIFY(presets.is_array() && presets.size() >= 10);
  for (const auto& p : presets) {
    const std::string name = p.at("name").get<std::string>();
    QTest::addRow("preset %s", name.c_str()) << dataFile("chat.jsonl") << QString::fromStdString(name) << false;
  }
  for (const maskscope::FrameworkDefinition& def : maskscope::frameworkDefinitions())
    for (const auto& v : def.info.versions)
      for (const auto& c : v.collators) {
        const nlohmann::json spec = {{"framework", def.info.name}, {"version", v.version}, {"collator", c.name}};
        const QString text = QString::fromStdString(spec.dump());
        const QString data = runnableData(text);
        if (data.isEmpty()) {
          gUnrunnable.insert(spec.dump());
          continue;
        }
        gFrameworksCovered.insert(def.info.name);
        QTest::addRow("%s %s %s", def.info.name.c_str(), v.version.c_str(), c.name.c_str())
            << data << text << (def.info.name == "torchtune");
      }
}

void TestGradedCount::oneCountEverywhere() {
  QFETCH(QString, data);
  QFETCH(QString, collator);
  QFETCH(bool, preShifted);
  const QStringList in = inputsOf(data, collator);

  const Run json = runMaskscope(QStringList{QStringLiteral("collate")} << in << QStringLiteral("--json"));
  QVERIFY2(json.status == 0, json.err.constData());
  const nlohmann::json batch = parsed(json.out.split('\n').front());
  QVERIFY(!batch.is_discarded());
  const long want = referenceCount(batch, preShifted);
  std::map<std::string, long> got;

  // collate's text form: "row R: A attended, G graded, ..." per row.
  const Run text = runMaskscope(QStringList{QStringLiteral("collate")} << in);
  QCOMPARE(text.status, 0);
  static const QRegularExpression rowLine(QStringLiteral("^  row \\d+: \\d+ attended, (\\d+) graded"),
                                          QRegularExpression::MultilineOption);
  long sum = 0, rows = 0;
  for (auto it = rowLine.globalMatch(QString::fromUtf8(text.out)); it.hasNext(); ++rows)
    sum += it.next().captured(1).toLong();
  QVERIFY2(rows > 0, text.out.constData());
  got["collate text"] = sum;

  // The position table, one JSON object per row.
  const Run table = runMaskscope(QStringList{QStringLiteral("collate")} << in << QStringLiteral("--table")
                                                                        << QStringLiteral("--json"));
  QCOMPARE(table.status, 0);
  sum = 0;
  for (const QByteArray& line : table.out.split('\n'))
    if (!line.isEmpty()) sum += parsed(line).at("graded").get<long>();
  got["collate --table"] = sum;

  // lint: every row of the file in one run (a micro-batch holds them all).
  const Run lint = runMaskscope(QStringList{QStringLiteral("lint"), data, QStringLiteral("--collator"), collator,
                                            QStringLiteral("--tokenizer"), kTokenizer, QStringLiteral("--json")});
  QVERIFY2(lint.status == 0 || lint.status == 1, lint.err.constData());
  got["lint"] = parsed(lint.out).at("summary").at("graded").at("total").get<long>();

  // snapshot: the batch the app's views draw for the same rows.
  QTemporaryDir dir;
  const QString rowsArg = QStringLiteral("0:3"); // every data file holds 3 rows: the batch collate printed
  const Run snap =
      runMaskscope(QStringList{QStringLiteral("snapshot"), QStringLiteral("--view"), QStringLiteral("tokens"),
                               QStringLiteral("--rows"), rowsArg, QStringLiteral("--out"),
                               dir.filePath(QStringLiteral("s.png")), QStringLiteral("--json")}
                   << in);
  QVERIFY2(snap.status == 0, snap.err.constData());
  got["snapshot"] = parsed(snap.out).at("batch").at("graded").get<long>();

#ifdef MASKSCOPE_HAVE_ENGINE
  const Run loss = runMaskscope(QStringList{QStringLiteral("loss"), QStringLiteral("--model"),
                                            QStringLiteral("builtin:tiny"), QStringLiteral("--json")}
                                << in);
  QVERIFY2(loss.status == 0 || loss.status == 1, loss.err.constData()); // 1: the masks change the loss
  got["loss"] = parsed(loss.out).at("graded_count").get<long>();
#endif

  for (const auto& [where, n] : got)
    QVERIFY2(n == want, qPrintable(QStringLiteral("%1 counts %2 graded, the labels hold %3")
                                       .arg(QString::fromStdString(where))
                                       .arg(n)
                                       .arg(want)));
}

// The frameworks the property ran on: every one but those whose collators all need options or data
// these files do not give (Unsloth's instruction/response markers, torchtune's tokenizer), listed so a
// reader sees them.
void TestGradedCount::everyFrameworkCovered() {
  for (const std::string& s : gUnrunnable) qInfo("not run on this data: %s", s.c_str());
  int covered = 0;
  for (const maskscope::FrameworkDefinition& def : maskscope::frameworkDefinitions()) {
    if (gFrameworksCovered.count(def.info.name))
      ++covered;
    else
      qInfo("framework not covered: %s", def.info.name.c_str());
  }
  QVERIFY2(covered >= 4, "fewer than four frameworks covered"); // trl, transformers, axolotl, llamafactory
}

QTEST_GUILESS_MAIN(TestGradedCount)
#include "tst_graded_count.moc"
