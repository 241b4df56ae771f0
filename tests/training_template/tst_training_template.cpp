// The training template (`maskscope patch-template`): every built-in and real template without markers gets generation
// blocks that render byte-identical text and cover exactly each reply and its closing token (expected replies in
// tests/data/training_template/cases.json); the Qwen3 training template matches its golden and Python jinja2's texts
// and spans (tools/templates/check_training_template.py); unpatchable templates exit 2 with the reason and write
// nothing.
#include "core/commands/PatchTemplateCommand.h"
#include "core/template/ChatTemplate.h"
#include "core/template/JinjaChatTemplate.h"
#include "core/template/TrainingTemplate.h"
#include "tests/TokenizerCacheRequired.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace maskscope;
using ojson = nlohmann::ordered_json;

namespace {
const std::string kData = std::string(MASKSCOPE_TEST_DATA_DIR) + "/training_template/";

std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// "cache:qwen3" -> the cached tokenizer_config.json; built-in names as they are. Empty: not cached.
std::string templateSpec(const std::string& name) {
  if (!name.starts_with("cache:")) return name;
  std::string p = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/" + name.substr(6) + "/tokenizer_config.json";
  return std::filesystem::exists(p) ? p : std::string();
}

RenderResult renderWith(const JinjaChatTemplate& t, const ojson& messages, bool generationPrompt,
                        const ojson& tools = nullptr, const ojson& extra = nullptr) {
  RenderOptions o;
  o.addGenerationPrompt = generationPrompt;
  o.now = "2024-07-26";
  o.computeMessageSpans = false;
  return t.renderJson(messages, o, tools, extra);
}

struct Run {
  int status;
  std::string out, err;
};
Run patchCli(const TrainingTemplateArgs& a, bool json) {
  std::ostringstream out, err;
  CommandIO io{out, err, json, false};
  int st = runTrainingTemplate(a, io);
  return {st, out.str(), err.str()};
}
#define REQUIRE_CACHED(spec) REQUIRE_TOKENIZER_CACHE(!(spec).empty())
} // namespace

class TestTrainingTemplate : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void wrapsReplies_data();
  void wrapsReplies();
  void qwen3MatchesJinja2();
  void refuses_data();
  void refuses();
  void cliWritesVerifiedTemplate();
};

void TestTrainingTemplate::wrapsReplies_data() {
  QTest::addColumn<QString>("name");
  ojson cases = ojson::parse(readAll(kData + "cases.json"));
  for (auto it = cases["cases"].begin(); it != cases["cases"].end(); ++it)
    QTest::newRow(it.key().c_str()) << QString::fromStdString(it.key());
}

void TestTrainingTemplate::wrapsReplies() {
  QFETCH(QString, name);
  const std::string spec = templateSpec(name.toStdString());
  REQUIRE_CACHED(spec);
  ojson fixture = ojson::parse(readAll(kData + "cases.json"));
  std::shared_ptr<ChatTemplate> original = loadChatTemplate(spec);
  QVERIFY(!original->hasGenerationMarkers());
  TrainingTemplateResult r = makeTrainingTemplate(original->source(), original->defaultVariables());
  QVERIFY2(r.ok, r.error.c_str());
  QVERIFY(r.probesChecked > 0);
  JinjaChatTemplate patched("patched", r.source, original->defaultVariables());
  QVERIFY(patched.hasGenerationMarkers());
  const auto& orig = dynamic_cast<const JinjaChatTemplate&>(*original);
  for (bool gen : {false, true}) {
    RenderResult want = renderWith(orig, fixture["conversation"], gen);
    RenderResult got = renderWith(patched, fixture["conversation"], gen);
    QCOMPARE(got.text, want.text);
    QVERIFY(got.generationSpans.has_value());
    // Adjacent blocks (a reply printed by several outputs) join into one reply.
    std::vector<std::string> replies;
    int64_t lastEnd = -1;
    for (const ByteSpan& s : *got.generationSpans) {
      if (s.empty()) continue;
      std::string piece = got.text.substr(size_t(s.begin), size_t(s.size()));
      if (s.begin == lastEnd)
        replies.back() += piece;
      else
        replies.push_back(piece);
      lastEnd = s.end;
    }
    QCOMPARE(ojson(replies).dump(), fixture["cases"][name.toStdString()].dump());
  }
}

void TestTrainingTemplate::qwen3MatchesJinja2() {
  const std::string spec = templateSpec("cache:qwen3");
  REQUIRE_CACHED(spec);
  std::shared_ptr<ChatTemplate> original = loadChatTemplate(spec);
  TrainingTemplateResult r = makeTrainingTemplate(original->source(), original->defaultVariables());
  QVERIFY2(r.ok, r.error.c_str());
  QCOMPARE(r.closingToken, std::string("<|im_end|>"));
  QCOMPARE(r.source, readAll(kData + "qwen3-training.jinja"));
  // Texts and raw spans that Python jinja2 (transformers' environment) gave for the same template.
  JinjaChatTemplate patched("patched", r.source, original->defaultVariables());
  ojson golden = ojson::parse(readAll(kData + "qwen3-jinja2.json"));
  QVERIFY(golden.size() >= 10);
  for (const auto& p : golden) {
    QVERIFY(p["identical"].get<bool>());
    RenderResult got = renderWith(patched, p["messages"], p["add_generation_prompt"].get<bool>(), p["tools"],
                                  p["extra"].empty() ? ojson(nullptr) : p["extra"]);
    QCOMPARE(got.text, p["text"].get<std::string>());
    ojson spans = ojson::array();
    for (const ByteSpan& s : got.generationSpans.value_or(std::vector<ByteSpan>{})) spans.push_back({s.begin, s.end});
    QCOMPARE(spans.dump(), p["generation_spans"].dump());
  }
}

void TestTrainingTemplate::refuses_data() {
  QTest::addColumn<QString>("spec");
  QTest::addColumn<QString>("reason");
  QTest::newRow("already-marked") << "chatml-assistant-mask"
                                  << "already has {% generation %} markers";
  QTest::newRow("closing-in-filter") << "file:closing-in-filter.jinja"
                                     << "never closed by \"<|im_end|>\"";
  QTest::newRow("turn-appended-to") << "file:turn-appended.jinja"
                                    << "found no output of an assistant message's content";
  QTest::newRow("closing-as-text") << "file:raw-closing.jinja"
                                   << "is plain template text here";
  QTest::newRow("macro") << "file:macro-turn.jinja"
                         << "found no output of an assistant message's content";
  QTest::newRow("span-differs")
      << "file:length-prefix.jinja"
      << "probe \"plain\": message 1: expected the generation span \"Probe answer one.<|im_end|>\"";
}

void TestTrainingTemplate::refuses() {
  QFETCH(QString, spec);
  QFETCH(QString, reason);
  std::string s = spec.toStdString();
  s = s.starts_with("file:") ? kData + s.substr(5) : templateSpec(s);
  REQUIRE_CACHED(s);
  QTemporaryDir dir;
  TrainingTemplateArgs a;
  a.templateSpec = s;
  a.out = dir.path().toStdString() + "/out.jinja";
  Run run = patchCli(a, false);
  QCOMPARE(run.status, 2);
  QVERIFY2(run.err.find(reason.toStdString()) != std::string::npos, run.err.c_str());
  QVERIFY2(run.err.find("nothing written") != std::string::npos, run.err.c_str());
  QVERIFY(!std::filesystem::exists(a.out));
}

void TestTrainingTemplate::cliWritesVerifiedTemplate() {
  QTemporaryDir dir;
  TrainingTemplateArgs a;
  a.templateSpec = "chatml";
  a.out = dir.path().toStdString() + "/chatml-training.jinja";
  Run run = patchCli(a, true);
  QCOMPARE(run.status, 0);
  ojson j = ojson::parse(run.out);
  QCOMPARE(j["closing_token"].get<std::string>(), std::string("<|im_end|>"));
  QCOMPARE(j["wrapped"].dump(), std::string(R"(["line 1: message['content'] + '<|im_end|>'"])"));
  QVERIFY(j["probes_checked"].get<int>() > 0);
  // The written file is a template the loader takes, with markers, rendering as the original.
  std::shared_ptr<ChatTemplate> written = loadChatTemplate(a.out);
  QVERIFY(written->hasGenerationMarkers());
  std::vector<Message> msgs = {{"user", "a", nullptr}, {"assistant", "b", nullptr}};
  RenderOptions o;
  QCOMPARE(written->render(msgs, o).text, loadChatTemplate("chatml")->render(msgs, o).text);
}

QTEST_GUILESS_MAIN(TestTrainingTemplate)
#include "tst_training_template.moc"
