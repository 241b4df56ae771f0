// Tests of the per-position table behind `collate --table`: the filters and counts against the
// batch itself, the article's Qwen example (real tokenizer from the cache), the four output
// formats parsed back, and the JSON string writer's escapes.
#include "core/commands/CollateCommand.h"
#include "core/commands/RenderCommand.h"
#include "core/mask/RowFacts.h"
#include "core/table/PositionTable.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <QTest>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace maskscope;

namespace {

std::string cacheDir() {
  if (const char* env = std::getenv("MASKSCOPE_TOKENIZER_CACHE")) return env;
  return MASKSCOPE_TOKENIZER_CACHE;
}

std::string dataFile(const char* name) { return std::string(MASKSCOPE_TEST_DATA_DIR) + "/table/" + name; }

// Runs the collate command and returns what it printed on stdout.
std::string collate(const BatchInputs& in, bool json, const CollateTableOptions& table) {
  std::ostringstream out, err;
  CommandIO io{out, err, json, false};
  const int status = runCommand(io, [&] { return runCollate(in, io, table); });
  if (status != 0) throw std::runtime_error("collate failed: " + err.str());
  return out.str();
}

BatchInputs demoRows(const char* collator) {
  BatchInputs in;
  in.dataSpec = "builtin:demo";
  in.tokenizerSpec = "builtin:demo";
  in.collatorSpec = collator;
  in.rowBegin = 0;
  in.rowEnd = 3;
  return in;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

} // namespace

class TestPositionTable : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void qwenFruitPair();
  void toolColumn();
  void filters_data();
  void filters();
  void formats_data();
  void formats();
  void badOptions_data();
  void badOptions();
  void jsonString_data();
  void jsonString();
  void lineSeparatorsEscaped_data();
  void lineSeparatorsEscaped();
  void renderJsonEscapesLineSeparators();
};

// The article's example: Qwen tokenizer + qwen2.5 template, system and whitespace hidden.
void TestPositionTable::qwenFruitPair() {
  const std::string qwen = cacheDir() + "/qwen3";
  if (!std::filesystem::exists(qwen + "/tokenizer.json"))
    QFAIL(qPrintable(QString::fromStdString("missing " + qwen + ": run tools/fetch-tokenizers.sh")));
  BatchInputs in;
  in.dataSpec = dataFile("fruit-pair.jsonl");
  in.tokenizerSpec = qwen;
  in.templateSpec = "qwen2.5";
  const auto doc = nlohmann::json::parse(collate(in, true, {true, "system,whitespace"}));
  const auto& rows = doc.at("rows");
  QCOMPARE(rows.size(), size_t(12));
  QCOMPARE(doc.at("ignored").get<int>(), 8);
  QCOMPARE(doc.at("graded").get<int>(), 4);
  for (size_t i = 0; i < 8; ++i) QCOMPARE(rows[i].at("label").get<int64_t>(), int64_t(-100));
  QCOMPARE(rows[7].at("token").get<std::string>(), std::string("assistant"));
  QCOMPARE(rows[11].at("token").get<std::string>(), std::string("<|im_end|>"));
  QVERIFY(rows[11].at("graded").get<bool>());
  QCOMPARE(rows[11].at("label").get<int64_t>(), rows[11].at("id").get<int64_t>());
  // Without filters the system turn (the template's default system prompt) is there, as "system".
  const auto all = nlohmann::json::parse(collate(in, true, {true, ""}));
  QVERIFY(all.at("rows").size() > 12);
  QCOMPARE(all.at("rows")[2].at("role").get<std::string>(), std::string("system"));
}

// Tool-call and tool-output positions name their function (JSON "tool", the text table's last
// column); every other position has none. Row 0 of tool-names.jsonl: get_weather then get_time.
void TestPositionTable::toolColumn() {
  BatchInputs in;
  in.dataSpec = MASKSCOPE_TEST_DATA_DIR "/collate/tool-names.jsonl";
  in.tokenizerSpec = "builtin:demo";
  in.templateSpec = "qwen2.5";
  in.rowBegin = 0;
  in.rowEnd = 1;
  const auto doc = nlohmann::json::parse(collate(in, true, {true, ""}));
  std::vector<std::string> calls, outputs; // the names of the runs, in order
  std::string previousRole;
  for (const auto& r : doc.at("rows")) {
    const std::string role = r.at("role").get<std::string>();
    const bool tool = role == "tool_call" || role == "tool";
    QVERIFY2(tool != r.at("tool").is_null(), r.dump().c_str());
    if (!tool) {
      previousRole = role;
      continue;
    }
    auto& names = role == "tool_call" ? calls : outputs;
    const std::string name = r.at("tool").get<std::string>();
    if (previousRole != role || names.back() != name) names.push_back(name);
    previousRole = role;
  }
  QCOMPARE(calls, (std::vector<std::string>{"get_weather", "get_time"}));
  QCOMPARE(outputs, (std::vector<std::string>{"get_weather", "get_time"}));
  const std::string text = collate(in, false, {true, ""});
  QVERIFY(text.find("\tposition_id\trole\ttool\n") != std::string::npos);
  QVERIFY(text.find("\ttool_call\tget_time\n") != std::string::npos);
}

void TestPositionTable::filters_data() {
  QTest::addColumn<QString>("collator");
  QTest::addColumn<QString>("hide");
  QTest::newRow("default-nothing-hidden") << "default"
                                          << "";
  QTest::newRow("default-system") << "default"
                                  << "system";
  QTest::newRow("default-whitespace") << "default"
                                      << "whitespace";
  QTest::newRow("default-padding") << "default"
                                   << "padding";
  QTest::newRow("buggy-all-ones-all-hidden") << "buggy-max-length-all-ones"
                                             << "system,whitespace,padding";
  // labels = input_ids: position 0 carries a label that never reaches the loss, and is not counted.
  QTest::newRow("buggy-all-ones-nothing-hidden") << "buggy-max-length-all-ones"
                                                 << "";
}

// Every shown row obeys the filter, and counts equal the batch's graded positions (gradedAt: the label
// reaches the loss, so never position 0) among the shown ones: the count lint's summary makes.
void TestPositionTable::filters() {
  QFETCH(QString, collator);
  QFETCH(QString, hide);
  const BatchInputs in = demoRows(collator.toUtf8().constData());
  std::shared_ptr<const Tokenizer> tokenizer;
  const Batch b = buildBatch(in, nullptr, &tokenizer);
  const PositionTableFilter filter = parseTableFilter(hide.toStdString());
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    const auto rows = buildPositionTable(b, r, tokenizer.get(), filter);
    const auto all = buildPositionTable(b, r, tokenizer.get(), {});
    QCOMPARE(int64_t(all.size()), b.length());
    int64_t graded = 0, hidden = 0;
    for (const auto& row : all) {
      const bool drop = (filter.hideSystem && row.role == "system") || (filter.hideWhitespace && row.whitespace) ||
                        (filter.hidePadding && row.padding);
      hidden += drop;
      if (!drop) graded += gradedAt(b, r, row.position);
    }
    QCOMPARE(int64_t(rows.size()), b.length() - hidden);
    const PositionTableCounts counts = countTable(rows);
    QCOMPARE(counts.graded, graded);
    QCOMPARE(counts.graded + counts.ignored, int64_t(rows.size()));
    if (hide.isEmpty()) QCOMPARE(counts.graded, rowFacts(b, r).gradedTotal()); // the summary's and the loss's count
    for (const auto& row : rows) {
      QVERIFY(!(filter.hideSystem && row.role == "system"));
      QVERIFY(!(filter.hideWhitespace && row.whitespace));
      QVERIFY(!(filter.hidePadding && row.padding));
      QCOMPARE(row.attention, b.attentionMask.at(r, row.position));
    }
  }
}

void TestPositionTable::formats_data() {
  QTest::addColumn<QString>("format");
  QTest::newRow("text") << "text";
  QTest::newRow("markdown") << "markdown";
  QTest::newRow("csv") << "csv";
  QTest::newRow("html") << "html";
}

// Each format parsed back: one header (+ rule) and one record of 9 fields per table row.
void TestPositionTable::formats() {
  QFETCH(QString, format);
  const BatchInputs in = demoRows("default");
  std::shared_ptr<const Tokenizer> tokenizer;
  const Batch b = buildBatch(in, nullptr, &tokenizer);
  const auto rows = buildPositionTable(b, 0, tokenizer.get(), parseTableFilter("padding"));
  std::ostringstream out;
  writePositionTable(out, rows, parseTableFormat(format.toStdString()));
  const auto text = out.str();
  const auto ls = lines(text);
  if (format == QLatin1String("text")) {
    QCOMPARE(ls.size(), rows.size() + 1);
    for (const auto& l : ls) QCOMPARE(std::count(l.begin(), l.end(), '\t'), std::ptrdiff_t(8));
  } else if (format == QLatin1String("markdown")) {
    QCOMPARE(ls.size(), rows.size() + 2);
    for (const auto& l : ls) {
      int cellBars = 0; // pipes that separate cells (a token's own pipe is written \|)
      for (size_t i = 0; i < l.size(); ++i) cellBars += l[i] == '|' && (i == 0 || l[i - 1] != '\\');
      QCOMPARE(cellBars, 10);
    }
  } else if (format == QLatin1String("csv")) {
    QCOMPARE(std::count(text.begin(), text.end(), '\n'), std::ptrdiff_t(rows.size() + 1));
    QVERIFY(text.find("\r\n") != std::string::npos);
  } else {
    QCOMPARE(int64_t(std::count(text.begin(), text.end(), '\n')), int64_t(rows.size() + 5));
    QVERIFY(text.find("<|") == std::string::npos); // special tokens escaped
    size_t graded = 0;
    for (size_t p = 0; (p = text.find("class=\"graded\"", p)) != std::string::npos; ++p) ++graded;
    QCOMPARE(int64_t(graded), countTable(rows).graded);
  }
}

void TestPositionTable::badOptions_data() {
  QTest::addColumn<QString>("hide");
  QTest::addColumn<QString>("format");
  QTest::newRow("unknown-hide-word") << "system,prompt"
                                     << "text";
  QTest::newRow("unknown-format") << ""
                                  << "latex";
}

void TestPositionTable::badOptions() {
  QFETCH(QString, hide);
  QFETCH(QString, format);
  std::ostringstream out, err;
  CommandIO io{out, err, false, false};
  const BatchInputs in = demoRows("default");
  CollateTableOptions table{true, hide.toStdString(), format.toStdString()};
  QCOMPARE(runCommand(io, [&] { return runCollate(in, io, table); }), 2);
  QVERIFY(err.str().find(hide.isEmpty() ? "--table-format" : "--hide") != std::string::npos);
}

void TestPositionTable::jsonString_data() {
  QTest::addColumn<QByteArray>("input");
  QTest::addColumn<QByteArray>("expected");
  QTest::newRow("plain") << QByteArray("abc") << QByteArray("\"abc\"");
  QTest::newRow("quote-backslash") << QByteArray("a\"b\\c") << QByteArray("\"a\\\"b\\\\c\"");
  QTest::newRow("newline-tab") << QByteArray("a\nb\tc") << QByteArray("\"a\\nb\\tc\"");
  QTest::newRow("control-0x01") << QByteArray("\x01", 1) << QByteArray("\"\\u0001\"");
  QTest::newRow("line-separator-u2028") << QByteArray("a\xE2\x80\xA8z") << QByteArray("\"a\\u2028z\"");
  QTest::newRow("paragraph-separator-u2029") << QByteArray("\xE2\x80\xA9") << QByteArray("\"\\u2029\"");
  QTest::newRow("next-line-u0085") << QByteArray("\xC2\x85") << QByteArray("\"\\u0085\"");
  QTest::newRow("invalid-utf8-byte") << QByteArray("a\xFFz") << QByteArray("\"a\xEF\xBF\xBDz\"");
  QTest::newRow("cjk-kept") << QByteArray("\xE4\xB8\xAD") << QByteArray("\"\xE4\xB8\xAD\"");
}

// Escapes as expected, and a JSON parser reads back the (sanitised) input.
void TestPositionTable::jsonString() {
  QFETCH(QByteArray, input);
  QFETCH(QByteArray, expected);
  const std::string out = maskscope::jsonString(std::string_view(input.constData(), size_t(input.size())));
  QCOMPARE(QByteArray::fromStdString(out), expected);
  QVERIFY(out.find("\xE2\x80\xA8") == std::string::npos && out.find("\xC2\x85") == std::string::npos);
  QCOMPARE(nlohmann::json::parse(out).is_string(), true); // throws when the literal is not valid JSON
}

void TestPositionTable::lineSeparatorsEscaped_data() {
  QTest::addColumn<QByteArray>("input");
  QTest::addColumn<QByteArray>("expected");
  QTest::newRow("none") << QByteArray("{\"a\":\"b\"}") << QByteArray("{\"a\":\"b\"}");
  QTest::newRow("u2028") << QByteArray("[\"a\xE2\x80\xA8"
                                       "b\"]")
                         << QByteArray("[\"a\\u2028b\"]");
  QTest::newRow("u2029-and-u0085") << QByteArray("[\"\xE2\x80\xA9\xC2\x85\"]") << QByteArray("[\"\\u2029\\u0085\"]");
  QTest::newRow("other-e2-80-kept") << QByteArray("[\"\xE2\x80\x94\"]") << QByteArray("[\"\xE2\x80\x94\"]");
}

void TestPositionTable::lineSeparatorsEscaped() {
  QFETCH(QByteArray, input);
  QFETCH(QByteArray, expected);
  const std::string out = escapeLineSeparators(input.toStdString());
  QCOMPARE(QByteArray::fromStdString(out), expected);
  QVERIFY(nlohmann::json::parse(out) == nlohmann::json::parse(input.toStdString())); // same document
}

// A command's JSON (render, through nlohmann's dump) carries no raw line separator.
void TestPositionTable::renderJsonEscapesLineSeparators() {
  RenderArgs a;
  a.templateSpec = "chatml";
  a.messagesFile = dataFile("line-separators.json");
  std::ostringstream out, err;
  CommandIO io{out, err, true, false};
  QCOMPARE(runCommand(io, [&] { return runRender(a, io); }), 0);
  const std::string text = out.str();
  QVERIFY(text.find("\xE2\x80\xA8") == std::string::npos && text.find("\xE2\x80\xA9") == std::string::npos &&
          text.find("\xC2\x85") == std::string::npos);
  QVERIFY(text.find("\\u2028") != std::string::npos);
  QVERIFY(nlohmann::json::parse(text).dump().find("\xE2\x80\xA8") != std::string::npos); // decodes back
}

QTEST_GUILESS_MAIN(TestPositionTable)
#include "tst_position_table.moc"
