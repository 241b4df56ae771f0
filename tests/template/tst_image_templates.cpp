// Rows with image parts rendered through the vision built-ins (qwen2-vl, gemma3-vision, llava),
// byte for byte against Python jinja2 (tools/templates/make_image_goldens.py): the template writes
// one placeholder per image, as transformers' apply_chat_template does before the processor.
#include "core/data/RowShapes.h"
#include "core/template/ChatTemplate.h"
#include "core/template/JinjaChatTemplate.h"
#include "core/util/FileReading.h"

#include <QTest>

#include <nlohmann/json.hpp>

using namespace maskscope;
using ojson = nlohmann::ordered_json;

namespace {

const ojson& goldens() {
  static const ojson g =
      ojson::parse(readFileCapped(std::string(MASKSCOPE_TEST_DATA_DIR) + "/templates/image_goldens.json"));
  return g;
}

QString q(const std::string& s) { return QString::fromStdString(s); }

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

int occurrences(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

} // namespace

class TestImageTemplates : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void render_data();
  void render();
  void builtinsNameSources();
};

void TestImageTemplates::render_data() {
  QTest::addColumn<int>("index");
  int i = 0;
  for (const auto& c : goldens()["cases"]) {
    std::string name = c["template"].get<std::string>() + "/" + c["row_name"].get<std::string>() +
                       (c["add_generation_prompt"].get<bool>() ? "/gen" : "");
    QTest::newRow(name.c_str()) << i++;
  }
}

void TestImageTemplates::render() {
  QFETCH(int, index);
  const ojson& c = goldens()["cases"][size_t(index)];
  auto tmpl = loadChatTemplate(c["template"].get<std::string>());
  auto* jt = dynamic_cast<JinjaChatTemplate*>(tmpl.get());
  QVERIFY(jt);
  RenderOptions opt;
  opt.addGenerationPrompt = c["add_generation_prompt"].get<bool>();
  for (auto it = c["variables"].begin(); it != c["variables"].end(); ++it)
    opt.variables[it.key()] = it.value().get<std::string>();
  const ojson& row = c["row"];
  QVERIFY(!c.contains("error"));
  const std::string expected = c["text"].get<std::string>();
  const RenderResult fromJson = jt->renderJson(row["messages"], opt, ojson());
  QCOMPARE(q(fromJson.text), q(expected));
  QCOMPARE(q(spansText(fromJson)), q(spansText(c["spans"])));
  // the row as collate and lint read it: list contents with images reach the template as lists
  const Conversation conv = conversationFromJson(row);
  const RenderResult fromRow = jt->render(conv.messages, opt);
  QCOMPARE(q(fromRow.text), q(expected));
  QCOMPARE(q(spansText(fromRow)), q(spansText(c["spans"])));
  // one placeholder per image part the template tests for: Qwen2-VL any image part, Gemma 3 and
  // LLaVA only {"type": "image"} (an image_url part renders as nothing: lint image-without-placeholder)
  int images = 0;
  for (const auto& msg : row["messages"])
    if (msg["content"].is_array())
      for (const auto& part : msg["content"])
        images += c["template"] == "qwen2-vl" ? part.value("type", "") != "text" : part.value("type", "") == "image";
  const std::string placeholder = c["template"] == "qwen2-vl"        ? "<|image_pad|>"
                                  : c["template"] == "gemma3-vision" ? "<start_of_image>"
                                                                     : "<image>";
  QCOMPARE(occurrences(expected, placeholder), images);
}

void TestImageTemplates::builtinsNameSources() {
  for (const char* n : {"qwen2-vl", "gemma3-vision", "llava"})
    QVERIFY2(loadChatTemplate(n)->source().find("Source: ") != std::string::npos, n);
}

QTEST_GUILESS_MAIN(TestImageTemplates)
#include "tst_image_templates.moc"
