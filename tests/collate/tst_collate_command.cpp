// `maskscope collate --json`: the documented keys (docs/cli.md) in their order, [B, T] lists of ints,
// for every preset; unusable input gives exit 2 with a message naming it; `--list-presets` lists
// every preset with its one-line meaning, and its JSON settings build the preset's collator.
#include "core/collate/CollatorSpec.h"
#include "core/commands/CollateCommand.h"
#include "core/table/GradedText.h"

#include <QtTest>

#include <sstream>
#include <string_view>

using namespace maskscope;

class TestCollateCommand : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void documentedJson_data();
  void documentedJson();
  void presetListing_data();
  void presetListing();
  void badInput_data();
  void badInput();
  void rowRanges();
  void gradedText_data();
  void gradedText();
  void gradedTextFollowsTheLabels();
  void quotedGradedTextFoldsRuns_data();
  void quotedGradedTextFoldsRuns();
};

void TestCollateCommand::documentedJson_data() {
  QTest::addColumn<QString>("collator");
  for (const CollatorPreset& p : collatorPresets()) QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
}

void TestCollateCommand::documentedJson() {
  QFETCH(QString, collator);
  BatchInputs in;
  in.dataSpec = "builtin:demo";
  in.tokenizerSpec = "builtin:demo";
  in.collatorSpec = collator.toStdString();
  in.rowBegin = 0;
  in.rowEnd = 4;
  std::ostringstream out, err;
  CommandIO io{out, err, true};
  QCOMPARE(runCommand(io, [&] { return runCollate(in, io); }), 0);
  const std::string text = out.str();
  // Keys in the documented order (the four grids, then each row's graded text), nothing else on stdout.
  const size_t a = text.find("\"input_ids\""), b = text.find("\"attention_mask\""), c = text.find("\"labels\""),
               d = text.find("\"position_ids\""), e = text.find("\"graded_text\"");
  QVERIFY(a == 1 && a < b && b < c && c < d && d < e && e != std::string::npos);
  auto j = nlohmann::json::parse(text);
  QCOMPARE(j.size(), size_t(5));
  QCOMPARE(j["graded_text"].size(), j["input_ids"].size());
  for (const auto& g : j["graded_text"]) QVERIFY(g.is_string());
  // The demo's ChatML template has no {% generation %}: replies are recovered from the roles, and
  // stderr says so (stdout keeps the documented keys).
  QVERIFY2(err.str().find("replies recovered from the message roles") != std::string::npos, err.str().c_str());
  const size_t rows = j["input_ids"].size();
  QVERIFY(rows >= 1);
  const size_t cols = j["input_ids"][0].size();
  // Padding-free presets return no attention_mask, as DataCollatorWithFlattening and TRL's
  // padding_free do: `null` (docs/cli.md, the collate JSON table).
  const bool paddingFree = parseCollatorSpec(collator.toStdString()).packing == Packing::PaddingFree;
  QCOMPARE(j["attention_mask"].is_null(), paddingFree);
  for (const char* key : {"input_ids", "attention_mask", "labels", "position_ids"}) {
    if (paddingFree && std::string_view(key) == "attention_mask") continue;
    QCOMPARE(j[key].size(), rows);
    for (const auto& row : j[key]) {
      QCOMPARE(row.size(), cols);
      for (const auto& v : row) QVERIFY(v.is_number_integer());
    }
  }
}

void TestCollateCommand::presetListing_data() {
  QTest::addColumn<int>("index");
  for (size_t i = 0; i < collatorPresets().size(); ++i) QTest::newRow(collatorPresets()[i].name.c_str()) << int(i);
}

void TestCollateCommand::presetListing() {
  QFETCH(int, index);
  const CollatorPreset& p = collatorPresets()[size_t(index)];
  // One line, short enough for a terminal next to the name.
  QVERIFY2(!p.summary.empty() && p.summary.size() < 100, p.summary.c_str());
  QVERIFY(p.summary.find('\n') == std::string::npos);
  QVERIFY(p.summary != p.mirrors);

  std::ostringstream text, json, err;
  CommandIO textIo{text, err, false}, jsonIo{json, err, true};
  QCOMPARE(listCollatorPresets(textIo), 0);
  QCOMPARE(listCollatorPresets(jsonIo), 0);
  QVERIFY(err.str().empty());
  // Text: the preset's own line holds its name, the bug mark when it reproduces a bug, and its meaning.
  std::string line;
  std::istringstream lines(text.str());
  bool found = false;
  while (std::getline(lines, line)) {
    if (!line.starts_with("  " + p.name + " ")) continue;
    found = true;
    QVERIFY2(line.ends_with(p.summary), line.c_str());
    QCOMPARE(line.find(" bug ") != std::string::npos, p.buggy);
  }
  QVERIFY2(found, text.str().c_str());

  // JSON: the entry's settings, applied to `default` as inline key=value, give the preset's collator.
  auto list = nlohmann::json::parse(json.str());
  QCOMPARE(list.size(), collatorPresets().size());
  const auto& e = list[size_t(index)];
  QCOMPARE(e["name"].get<std::string>(), p.name);
  QCOMPARE(e["summary"].get<std::string>(), p.summary);
  QCOMPARE(e["buggy"].get<bool>(), p.buggy);
  nlohmann::json fromSettings =
      parseCollatorSpec(e["settings"].get<std::string>().empty() ? "default" : e["settings"].get<std::string>())
          .toJson();
  nlohmann::json fromName = parseCollatorSpec(p.name).toJson();
  QCOMPARE(e["spec"].dump(), fromName.dump());
  fromSettings["name"] = p.name;
  QCOMPARE(fromSettings.dump(), fromName.dump());
}

void TestCollateCommand::badInput_data() {
  QTest::addColumn<QString>("collator");
  QTest::addColumn<QString>("tokenizer");
  QTest::addColumn<QString>("data");
  QTest::addColumn<QString>("mentions");
  const QString demo = QStringLiteral("builtin:demo");
  QTest::newRow("unknown-preset") << QStringLiteral("nope") << demo << demo << QStringLiteral("nope");
  QTest::newRow("missing-data") << QStringLiteral("default") << demo << QStringLiteral("/nonexistent/data.jsonl")
                                << QStringLiteral("/nonexistent/data.jsonl");
  QTest::newRow("no-tokenizer-option") << QStringLiteral("default") << QString() << demo
                                       << QStringLiteral("--tokenizer");
  QTest::newRow("no-data-option") << QStringLiteral("default") << demo << QString() << QStringLiteral("--data");
}

void TestCollateCommand::badInput() {
  QFETCH(QString, collator);
  QFETCH(QString, tokenizer);
  QFETCH(QString, data);
  QFETCH(QString, mentions);
  BatchInputs in;
  in.tokenizerSpec = tokenizer.toStdString();
  in.dataSpec = data.toStdString();
  in.collatorSpec = collator.toStdString();
  std::ostringstream out, err;
  CommandIO io{out, err, true};
  QCOMPARE(runCommand(io, [&] { return runCollate(in, io); }), 2);
  QVERIFY(out.str().empty());
  QVERIFY2(QString::fromStdString(err.str()).contains(mentions), err.str().c_str());
}

void TestCollateCommand::rowRanges() {
  long b = -1, e = -1;
  parseRowRange("0:4", b, e);
  QCOMPARE(b, 0L);
  QCOMPARE(e, 4L);
  parseRowRange("3", b, e);
  QCOMPARE(b, 3L);
  QCOMPARE(e, 4L);
  parseRowRange("5:", b, e);
  QCOMPARE(e, -1L);
  QVERIFY_THROWS_EXCEPTION(std::exception, parseRowRange("4:2", b, e));
}

// "Verify one batch": each row's graded targets decoded, runs joined by "…" (docs/cli.md, Graded
// text). The quiz's "Blue." reads exactly the reply and its closing token; two replies, two runs.
void TestCollateCommand::gradedText_data() {
  QTest::addColumn<QString>("tokenizer");
  QTest::addColumn<QString>("collator");
  QTest::addColumn<int>("row");
  QTest::addColumn<QString>("want");
  QTest::newRow("chatml reply and closing token") << "builtin:demo"
                                                  << "default" << 0 << "Blue.<|im_end|>";
  QTest::newRow("two replies, two runs") << "builtin:demo"
                                         << "default" << 1 << "Hello!<|im_end|>\u2026Hello again.<|im_end|>";
  QTest::newRow("last turn only") << "builtin:demo"
                                  << "buggy-last-turn-only" << 1 << "Hello again.<|im_end|>";
}

void TestCollateCommand::gradedText() {
  QFETCH(QString, tokenizer);
  QFETCH(QString, collator);
  QFETCH(int, row);
  QFETCH(QString, want);
  BatchInputs in;
  in.dataSpec = MASKSCOPE_TEST_DATA_DIR "/cli/graded-count/chat.jsonl";
  in.tokenizerSpec = tokenizer.toStdString();
  in.templateSpec = "chatml";
  in.collatorSpec = collator.toStdString();
  std::ostringstream out, err;
  CommandIO io{out, err, true};
  QCOMPARE(runCommand(io, [&] { return runCollate(in, io); }), 0);
  const auto j = nlohmann::json::parse(out.str());
  QCOMPARE(QString::fromStdString(j.at("graded_text").at(size_t(row)).get<std::string>()), want);
  // The text form prints the same, quoted as JSON.
  std::ostringstream text, terr;
  CommandIO tio{text, terr, false};
  QCOMPARE(runCommand(tio, [&] { return runCollate(in, tio); }), 0);
  const std::string line = "graded text: " + nlohmann::json(want.toStdString()).dump(-1, ' ', false);
  QVERIFY2(text.str().find(line) != std::string::npos, text.str().c_str());
}

// The text is read from the labels, not from the reply spans: grading the whole sequence shows the
// prompt too (from position 1: the label at 0 is never scored), and the ids without a tokenizer.
void TestCollateCommand::gradedTextFollowsTheLabels() {
  Batch b;
  b.inputIds = IntGrid(1, 5);
  b.labels = IntGrid(1, 5, kIgnoreIndex);
  b.attentionMask = IntGrid(1, 5, 1);
  for (int64_t t = 0; t < 5; ++t) b.inputIds.at(0, t) = 100 + t;
  b.labels.at(0, 0) = 100; // never scored: not in the text
  b.labels.at(0, 1) = 101;
  b.labels.at(0, 3) = 103;
  b.labels.at(0, 4) = 104;
  QCOMPARE(gradedTextOfRow(b, 0, nullptr), std::string("#101\u2026#103 #104"));
  b.labels.at(0, 2) = 102; // one run now
  QCOMPARE(gradedTextOfRow(b, 0, nullptr), std::string("#101 #102 #103 #104"));
  b.labels = IntGrid(1, 5, kIgnoreIndex);
  QCOMPARE(gradedTextOfRow(b, 0, nullptr), std::string());
}

// The text forms fold a run of one special-looking token (4 copies or more) outside the quotes.
void TestCollateCommand::quotedGradedTextFoldsRuns_data() {
  QTest::addColumn<QByteArray>("text");
  QTest::addColumn<QByteArray>("printed");
  auto copies = [](int n, const QByteArray& unit = QByteArray("<|image_pad|>")) { return unit.repeated(n); };
  const QByteArray q("\""), longUnit = "<" + QByteArray(70, 'x') + ">";
  QTest::newRow("plain reply") << QByteArray("Blue.<|im_end|>\n") << QByteArray("\"Blue.<|im_end|>\\n\"");
  QTest::newRow("three copies stay") << copies(3) << q + copies(3) + q;
  QTest::newRow("four copies fold") << copies(4) << QByteArray("<|image_pad|>\u00d74");
  QTest::newRow("block inside text") << "user\n<|vision_start|>" + copies(256) + "<|vision_end|>Hi"
                                     << QByteArray("\"user\\n<|vision_start|>\" <|image_pad|>\u00d7256 "
                                                   "\"<|vision_end|>Hi\"");
  QTest::newRow("two blocks") << copies(5) + "a" + copies(6, "<image_soft_token>")
                              << QByteArray("<|image_pad|>\u00d75 \"a\" <image_soft_token>\u00d76");
  QTest::newRow("a unit with a space is text") << copies(5, "<a b>") << q + copies(5, "<a b>") + q;
  QTest::newRow("a unit over 64 bytes is text") << copies(4, longUnit) << q + copies(4, longUnit) + q;
  QTest::newRow("empty") << QByteArray() << QByteArray("\"\"");
}

void TestCollateCommand::quotedGradedTextFoldsRuns() {
  QFETCH(QByteArray, text);
  QFETCH(QByteArray, printed);
  QCOMPARE(QByteArray::fromStdString(quotedGradedText(text.toStdString())), printed);
}

QTEST_GUILESS_MAIN(TestCollateCommand)
#include "tst_collate_command.moc"
