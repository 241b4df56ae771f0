// LLaMA-Factory reproduced through `maskscope collate`: LLaMA-Factory's own published unit tests
// (v0.9.6.dev0 at ff6d4d1; the same tests at v0.9.5) replayed with their inputs and expectations,
// tests/data/frameworks/llamafactory/cases.json (tools/frameworks/llamafactory_goldens.py cites each
// test: test_template.py, processor/test_supervised.py, test_collator.py). Where the upstream test loads
// a model tokenizer not available here (tiny-random-Llama-3, Qwen3-8B) the cached Llama-3 / Qwen3
// tokenizer is used and the expected ids are the upstream strings tokenized by @huggingface/tokenizers.
#include "tests/TokenizerCacheRequired.h"
#include "tests/frameworks/FrameworkCases.h"

#include <QFileInfo>
#include <QTest>

using namespace maskscope;
using J = nlohmann::ordered_json;

namespace {
const std::string kDir = MASKSCOPE_TEST_DATA_DIR "/frameworks/llamafactory";
}

class TestLlamaFactory : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void upstreamTests_data();
  void upstreamTests();
};

void TestLlamaFactory::upstreamTests_data() {
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("version");
  const auto cases = testing::loadCases(kDir);
  for (size_t i = 0; i < cases.size(); ++i)
    for (const char* v : {"0.9.5", "0.9.6.dev0"})
      QTest::newRow((cases[i]["name"].get<std::string>() + " @" + v).c_str()) << int(i) << QString::fromLatin1(v);
}

void TestLlamaFactory::upstreamTests() {
  QFETCH(int, index);
  QFETCH(QString, version);
  J c = testing::loadCases(kDir)[size_t(index)];
  c["spec"]["version"] = version.toStdString();
  if (c["tokenizer"].is_string())
    REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(
        QString::fromStdString(std::string(MASKSCOPE_TOKENIZER_CACHE) + "/" + c["tokenizer"].get<std::string>())));
  const testing::CaseRun run = testing::runCase(c, kDir);
  const std::string problem = testing::checkCase(c, run);
  QVERIFY2(problem.empty(), (c["cites"].get<std::string>() + ": " + problem).c_str());
}

QTEST_GUILESS_MAIN(TestLlamaFactory)
#include "tst_llamafactory.moc"
