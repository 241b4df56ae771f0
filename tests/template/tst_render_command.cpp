// `maskscope render` end to end: JSON output with generation spans, plain text output, tools and
// extra variables from the messages file, --var, --now, and raise_exception as exit status 2.
#include "core/commands/RenderCommand.h"

#include <QTest>

#include <nlohmann/json.hpp>
#include <sstream>

using namespace maskscope;

namespace {
// Messages files, the template and the dataset live in tests/data/templates/render/.
std::string fixture(const char* name) { return std::string(MASKSCOPE_TEST_DATA_DIR) + "/templates/render/" + name; }
struct Run {
  int status;
  std::string out, err;
};
Run render(const RenderArgs& a, bool json) {
  std::ostringstream out, err;
  CommandIO io{out, err, json, false};
  int st = runRender(a, io);
  return {st, out.str(), err.str()};
}
} // namespace

class TestRenderCommand : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void jsonOutput_data();
  void jsonOutput();
  void textOutputAndErrors();
};

void TestRenderCommand::jsonOutput_data() {
  QTest::addColumn<QString>("templateSpec");
  QTest::addColumn<bool>("generationPrompt");
  QTest::addColumn<QString>("expectedText");
  QTest::addColumn<QString>("expectedSpans");
  QTest::newRow("chatml") << QStringLiteral("chatml") << false
                          << QStringLiteral("<|im_start|>user\nhé<|im_end|>\n<|im_start|>assistant\nok<|im_end|>\n")
                          << QStringLiteral("null");
  QTest::newRow("chatml-gen")
      << QStringLiteral("chatml") << true
      << QStringLiteral("<|im_start|>user\nhé<|im_end|>\n<|im_start|>assistant\nok<|im_end|>\n<|im_start|>assistant\n")
      << QStringLiteral("null");
  // "hé" is 3 bytes: the reply starts at byte 53 (character 52)
  QTest::newRow("chatml-assistant-mask") << QStringLiteral("chatml-assistant-mask") << false
                                         << QStringLiteral(
                                                "<|im_start|>user\nhé<|im_end|>\n<|im_start|>assistant\nok<|im_end|>\n")
                                         << QStringLiteral("[[53,65]]");
}

void TestRenderCommand::jsonOutput() {
  QFETCH(QString, templateSpec);
  QFETCH(bool, generationPrompt);
  QFETCH(QString, expectedText);
  QFETCH(QString, expectedSpans);
  RenderArgs a;
  a.templateSpec = templateSpec.toStdString();
  a.messagesFile = fixture("user_assistant.json");
  a.addGenerationPrompt = generationPrompt;
  Run r = render(a, true);
  QCOMPARE(r.status, 0);
  auto j = nlohmann::json::parse(r.out);
  QCOMPARE(QString::fromStdString(j["text"].get<std::string>()), expectedText);
  QCOMPARE(QString::fromStdString(j["generation_spans"].dump()), expectedSpans);
}

void TestRenderCommand::textOutputAndErrors() {
  // object form: tools (key order kept) and an extra variable; --var and --now
  RenderArgs a;
  a.templateSpec = fixture("tools_and_variable.jinja");
  a.messagesFile = fixture("tools_and_variable.json");
  a.vars = {{"bos_token", "<B>"}};
  a.now = "2024-07-26";
  Run r = render(a, false);
  QCOMPARE(r.status, 0);
  QCOMPARE(QString::fromStdString(r.out),
           QStringLiteral("<B>26 Jul 2024|{\"zeta\": 1, \"alpha\": {\"b\": 2, \"a\": 1}}|mint|x"));
  // raise_exception: exit 2 with the template's message
  a.templateSpec = "gemma";
  a.messagesFile = fixture("system_user.json");
  r = render(a, true);
  QCOMPARE(r.status, 2);
  QVERIFY2(r.err.find("System role not supported") != std::string::npos, r.err.c_str());
  QVERIFY(r.out.empty());
  // bad input: not JSON, names the file
  a.messagesFile = fixture("bad.json");
  r = render(a, true);
  QCOMPARE(r.status, 2);
  QVERIFY(r.err.find("bad.json") != std::string::npos);
  // a dataset row
  a.messagesFile.clear();
  a.templateSpec = "chatml";
  a.dataFile = fixture("two_rows.jsonl");
  a.row = 1;
  r = render(a, false);
  QCOMPARE(r.status, 0);
  QCOMPARE(QString::fromStdString(r.out),
           QStringLiteral("<|im_start|>user\nr1<|im_end|>\n<|im_start|>assistant\na1<|im_end|>\n"));
}

QTEST_GUILESS_MAIN(TestRenderCommand)
#include "tst_render_command.moc"
