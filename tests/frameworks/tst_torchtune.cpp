// torchtune reproduced through `maskscope collate`: torchtune's own published unit tests (main at
// bd2a0fc, version.txt 0.7.0) replayed with their inputs and expectations,
// tests/data/frameworks/torchtune/cases.json (tools/frameworks/torchtune_goldens.py cites each test:
// tests/torchtune/data/test_collate.py, tests/torchtune/datasets/test_packed_dataset.py). Pre-tokenized
// rows only: no tokenizer is needed. What is not reproduced is refused by name (refusals.json: a
// messages row with a tool call and an ipython turn).
#include "tests/frameworks/FrameworkCases.h"

#include <QTest>
#include <fstream>

using namespace maskscope;
using J = nlohmann::ordered_json;

namespace {
const std::string kDir = MASKSCOPE_TEST_DATA_DIR "/frameworks/torchtune";
}

class TestTorchtune : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void upstreamTests_data();
  void upstreamTests();
  void refusedByName_data();
  void refusedByName();
};

void TestTorchtune::upstreamTests_data() {
  QTest::addColumn<int>("index");
  const auto cases = testing::loadCases(kDir);
  for (size_t i = 0; i < cases.size(); ++i) QTest::newRow(cases[i]["name"].get<std::string>().c_str()) << int(i);
}

void TestTorchtune::upstreamTests() {
  QFETCH(int, index);
  const J c = testing::loadCases(kDir)[size_t(index)];
  const testing::CaseRun run = testing::runCase(c, kDir);
  const std::string problem = testing::checkCase(c, run);
  QVERIFY2(problem.empty(), (c["cites"].get<std::string>() + ": " + problem).c_str());
}

void TestTorchtune::refusedByName_data() {
  QTest::addColumn<QByteArray>("json");
  std::ifstream f(kDir + "/refusals.json");
  for (const J& c : J::parse(f))
    QTest::newRow(c["name"].get<std::string>().c_str()) << QByteArray::fromStdString(c.dump());
}

void TestTorchtune::refusedByName() {
  QFETCH(QByteArray, json);
  const J c = J::parse(json.toStdString());
  const testing::CaseRun run = testing::runCase(c, kDir);
  const std::string problem = testing::checkCase(c, run);
  QVERIFY2(problem.empty(), (problem + " / stderr: " + run.err).c_str());
}

QTEST_GUILESS_MAIN(TestTorchtune)
#include "tst_torchtune.moc"
