// Tool-call rows ({"messages", "tools"}, assistant tool_calls, tool messages) rendered through the
// real built-in templates, byte for byte against Python jinja2 (tools/templates/make_tool_goldens.py),
// both as JSON messages and as a dataset row read the way collate and lint read it.
#include "core/data/RowShapes.h"
#include "core/template/ChatTemplate.h"
#include "core/template/JinjaChatTemplate.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <QTest>

#include <nlohmann/json.hpp>

using namespace maskscope;
using ojson = nlohmann::ordered_json;

namespace {

const ojson& goldens() {
  static const ojson g =
      ojson::parse(readFileCapped(std::string(MASKSCOPE_TEST_DATA_DIR) + "/templates/tool_goldens.json"));
  return g;
}

QString q(const std::string& s) { return QString::fromStdString(s); }

std::shared_ptr<ChatTemplate> templateOf(const ojson& c) {
  const std::string path = c["path"].get<std::string>();
  const std::string builtinPrefix = "resources/templates/";
  if (path.rfind(builtinPrefix, 0) == 0) { // the built-in as embedded, which must be the golden's file
    std::string name = path.substr(builtinPrefix.size());
    name.resize(name.size() - 6);
    return loadChatTemplate(name);
  }
  return loadChatTemplate(std::string(MASKSCOPE_SOURCE_DIR) + "/" + path);
}

std::string spansText(const RenderResult& r) {
  std::string s;
  if (r.generationSpans)
    for (const auto& sp : *r.generationSpans) s += "[" + std::to_string(sp.begin) + "," + std::to_string(sp.end) + "]";
  return s;
}

std::string spansText(const ojson& spans) {
  std::string s;
  for (const auto& sp : spans)
    s += "[" + std::to_string(sp[0].get<int64_t>()) + "," + std::to_string(sp[1].get<int64_t>()) + "]";
  return s;
}

} // namespace

class TestToolTemplates : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void render_data();
  void render();
  void coverage();
};

void TestToolTemplates::render_data() {
  QTest::addColumn<int>("index");
  int i = 0;
  for (const auto& c : goldens()["cases"]) {
    std::string name = c["template"].get<std::string>() + "/" + c["row_name"].get<std::string>() +
                       (c["add_generation_prompt"].get<bool>() ? "/gen" : "");
    QTest::newRow(name.c_str()) << i++;
  }
}

void TestToolTemplates::render() {
  QFETCH(int, index);
  const ojson& c = goldens()["cases"][size_t(index)];
  auto tmpl = templateOf(c);
  auto* jt = dynamic_cast<JinjaChatTemplate*>(tmpl.get());
  QVERIFY(jt);
  RenderOptions opt;
  opt.addGenerationPrompt = c["add_generation_prompt"].get<bool>();
  opt.now = "2024-07-26";
  for (auto it = c["variables"].begin(); it != c["variables"].end(); ++it)
    opt.variables[it.key()] = it.value().get<std::string>();
  const ojson& row = c["row"];
  const ojson tools = row.contains("tools") ? row["tools"] : ojson();
  // the row as collate and lint read it: tools to the template, null content as None
  const Conversation conv = conversationFromJson(row);
  RenderOptions rowOpt = opt;
  rowOpt.tools = conv.tools;
  if (c.contains("error")) {
    const std::string expected = c["error"].get<std::string>();
    const std::string msg = expected.substr(expected.find(": ") + 2);
    for (int path = 0; path < 2; ++path) {
      try {
        if (path == 0)
          jt->renderJson(row["messages"], opt, tools);
        else
          jt->render(conv.messages, rowOpt);
        QFAIL(("expected an error: " + expected).c_str());
      } catch (const Error& e) {
        // raise_exception messages come through verbatim; Python's own errors (a None where a
        // string is needed) only as an error
        if (expected.rfind("TemplateError: ", 0) == 0)
          QVERIFY2(e.message().find(msg) != std::string::npos, (e.message() + " vs " + expected).c_str());
      }
    }
    return;
  }
  const RenderResult fromJson = jt->renderJson(row["messages"], opt, tools);
  QCOMPARE(q(fromJson.text), q(c["text"].get<std::string>()));
  QCOMPARE(q(spansText(fromJson)), q(spansText(c["spans"])));
  const RenderResult fromRow = jt->render(conv.messages, rowOpt);
  QCOMPARE(q(fromRow.text), q(c["text"].get<std::string>()));
  QCOMPARE(q(spansText(fromRow)), q(spansText(c["spans"])));
  QCOMPARE(int(fromRow.messages.size()), int(conv.messages.size()));
}

// The goldens cover what the issue names: each template renders the tools it is given, parallel
// calls, a tool error and string arguments, so a template that drops them fails here.
void TestToolTemplates::coverage() {
  int rendered = 0;
  for (const auto& c : goldens()["cases"]) {
    if (!c.contains("text") || !c["row"].contains("tools")) continue;
    ++rendered;
    const std::string text = c["text"].get<std::string>();
    QVERIFY2(text.find("get_weather") != std::string::npos, c["template"].get<std::string>().c_str());
    if (c["row_name"] == "tool_error") QVERIFY(text.find("unknown city: Atlantis") != std::string::npos);
  }
  QVERIFY(rendered >= 60);
}

QTEST_GUILESS_MAIN(TestToolTemplates)
#include "tst_tool_templates.moc"
