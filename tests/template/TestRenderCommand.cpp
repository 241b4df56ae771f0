// `maskscope render` end to end: JSON output with generation spans, plain text output, tools and
// extra variables from the messages file, --var, --now, and raise_exception as exit status 2.
#include "core/commands/RenderCommand.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace maskscope;

namespace {
std::string write(const QTemporaryDir& d, const char* name, const std::string& text) {
  std::string p = d.path().toStdString() + "/" + name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}
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
  QTemporaryDir d;
  RenderArgs a;
  a.templateSpec = templateSpec.toStdString();
  a.messagesFile = write(d, "m.json", R"([{"role": "user", "content": "hé"}, {"role": "assistant", "content": "ok"}])");
  a.addGenerationPrompt = generationPrompt;
  Run r = render(a, true);
  QCOMPARE(r.status, 0);
  auto j = nlohmann::json::parse(r.out);
  QCOMPARE(QString::fromStdString(j["text"].get<std::string>()), expectedText);
  QCOMPARE(QString::fromStdString(j["generation_spans"].dump()), expectedSpans);
}

void TestRenderCommand::textOutputAndErrors() {
  QTemporaryDir d;
  // object form: tools (key order kept) and an extra variable; --var and --now
  std::string tmpl = write(d, "t.jinja",
                           "{{ bos_token }}{{ strftime_now('%d %b %Y') }}|{{ tools[0]|tojson }}|{{ flavour }}|"
                           "{% for m in messages %}{{ m.content }}{% endfor %}");
  RenderArgs a;
  a.templateSpec = tmpl;
  a.messagesFile = write(d, "m.json", R"({"messages": [{"role": "user", "content": "x"}],
    "tools": [{"zeta": 1, "alpha": {"b": 2, "a": 1}}], "flavour": "mint"})");
  a.vars = {{"bos_token", "<B>"}};
  a.now = "2024-07-26";
  Run r = render(a, false);
  QCOMPARE(r.status, 0);
  QCOMPARE(QString::fromStdString(r.out),
           QStringLiteral("<B>26 Jul 2024|{\"zeta\": 1, \"alpha\": {\"b\": 2, \"a\": 1}}|mint|x"));
  // raise_exception: exit 2 with the template's message
  a.templateSpec = "gemma";
  a.messagesFile = write(d, "s.json", R"([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}])");
  r = render(a, true);
  QCOMPARE(r.status, 2);
  QVERIFY2(r.err.find("System role not supported") != std::string::npos, r.err.c_str());
  QVERIFY(r.out.empty());
  // bad input: not JSON, names the file
  a.messagesFile = write(d, "bad.json", "{nope");
  r = render(a, true);
  QCOMPARE(r.status, 2);
  QVERIFY(r.err.find("bad.json") != std::string::npos);
  // a dataset row
  a.messagesFile.clear();
  a.templateSpec = "chatml";
  a.dataFile = write(
      d, "data.jsonl",
      "{\"messages\": [{\"role\": \"user\", \"content\": \"r0\"}]}\n"
      "{\"messages\": [{\"role\": \"user\", \"content\": \"r1\"}, {\"role\": \"assistant\", \"content\": \"a1\"}]}\n");
  a.row = 1;
  r = render(a, false);
  QCOMPARE(r.status, 0);
  QCOMPARE(QString::fromStdString(r.out),
           QStringLiteral("<|im_start|>user\nr1<|im_end|>\n<|im_start|>assistant\na1<|im_end|>\n"));
}

QTEST_GUILESS_MAIN(TestRenderCommand)
#include "TestRenderCommand.moc"
