// The frameworks' own published unit tests replayed in process through `maskscope collate`: every
// tests/data/frameworks/<framework>/cases.json (FrameworkCases.h; LLaMA-Factory v0.9.6.dev0 at ff6d4d1
// and torchtune 0.7.0 at bd2a0fc, each case citing its upstream test) at every version the framework's
// catalogue lists, unless the case pins one in its spec. A new catalogue version is then checked
// against the upstream tests without editing this file.
#include "core/frameworks/FrameworkList.h"
#include "tests/TokenizerCacheRequired.h"
#include "tests/frameworks/FrameworkCases.h"

#include <QDir>
#include <QFileInfo>
#include <QTest>

#include <algorithm>
#include <fstream>

using namespace maskscope;
using J = nlohmann::ordered_json;

namespace {

const QString kRoot = QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/frameworks");

// The catalogue versions of the case's framework whose collator (the spec's, else the version's
// default) takes every option the case's spec sets: an upstream test of a newer option does not run
// at a version without it.
std::vector<std::string> catalogueVersions(const J& spec) {
  for (const FrameworkDefinition& d : frameworkDefinitions()) {
    if (d.info.name != spec["framework"].get<std::string>()) continue;
    std::vector<std::string> out;
    for (const VersionInfo& v : d.info.versions) {
      const CollatorInfo* c = v.collators.empty() ? nullptr : &v.collators.front();
      if (spec.contains("collator"))
        for (const CollatorInfo& x : v.collators)
          if (x.name == spec["collator"].get<std::string>()) c = &x;
      if (!c || (spec.contains("collator") && c->name != spec["collator"].get<std::string>())) continue;
      bool takesAll = true;
      for (auto it = spec.begin(); it != spec.end(); ++it) {
        if (it.key() == "framework" || it.key() == "collator" || it.key() == d.info.typeKey) continue;
        takesAll = takesAll && std::any_of(c->options.begin(), c->options.end(),
                                           [&](const OptionInfo& o) { return o.name == it.key(); });
      }
      if (takesAll) out.push_back(v.version);
    }
    return out;
  }
  return {};
}

} // namespace

class TestUpstreamCases : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void upstreamTests_data();
  void upstreamTests();
  void refusedByName_data();
  void refusedByName();
};

void TestUpstreamCases::upstreamTests_data() {
  QTest::addColumn<QString>("folder");
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("version");
  int folders = 0;
  for (const QString& group : QDir(kRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
    const QString dir = kRoot + QLatin1Char('/') + group;
    if (!QFileInfo::exists(dir + QStringLiteral("/cases.json"))) continue;
    ++folders;
    const auto cases = testing::loadCases(dir.toStdString());
    for (size_t i = 0; i < cases.size(); ++i) {
      const J& spec = cases[i]["spec"];
      std::vector<std::string> versions = spec.contains("version")
                                              ? std::vector<std::string>{spec["version"].get<std::string>()}
                                              : catalogueVersions(spec);
      QVERIFY2(!versions.empty(), qPrintable(group + QStringLiteral(": a case of an unknown framework")));
      for (const std::string& v : versions)
        QTest::newRow(qPrintable(group + QLatin1Char('/') +
                                 QString::fromStdString(cases[i]["name"].get<std::string>()) + QStringLiteral(" @") +
                                 QString::fromStdString(v)))
            << dir << int(i) << QString::fromStdString(v);
    }
  }
  QVERIFY2(folders >= 2, "tests/data/frameworks holds fewer cases.json folders than LLaMA-Factory and torchtune");
}

void TestUpstreamCases::upstreamTests() {
  QFETCH(QString, folder);
  QFETCH(int, index);
  QFETCH(QString, version);
  J c = testing::loadCases(folder.toStdString())[size_t(index)];
  c["spec"]["version"] = version.toStdString();
  if (c["tokenizer"].is_string())
    REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(
        QString::fromStdString(std::string(MASKSCOPE_TOKENIZER_CACHE) + "/" + c["tokenizer"].get<std::string>())));
  const testing::CaseRun run = testing::runCase(c, folder.toStdString());
  const std::string problem = testing::checkCase(c, run);
  QVERIFY2(problem.empty(), (c["cites"].get<std::string>() + ": " + problem).c_str());
}

// What a framework does that maskscope does not reproduce is refused by name: each folder's
// refusals.json (cases in the same format, expecting exit 2 and the message).
void TestUpstreamCases::refusedByName_data() {
  QTest::addColumn<QString>("folder");
  QTest::addColumn<QByteArray>("json");
  for (const QString& group : QDir(kRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
    const QString dir = kRoot + QLatin1Char('/') + group;
    std::ifstream f(QString(dir + QStringLiteral("/refusals.json")).toStdString());
    if (!f) continue;
    for (const J& c : J::parse(f))
      QTest::newRow(qPrintable(group + QLatin1Char('/') + QString::fromStdString(c["name"].get<std::string>())))
          << dir << QByteArray::fromStdString(c.dump());
  }
}

void TestUpstreamCases::refusedByName() {
  QFETCH(QString, folder);
  QFETCH(QByteArray, json);
  const J c = J::parse(json.toStdString());
  const testing::CaseRun run = testing::runCase(c, folder.toStdString());
  const std::string problem = testing::checkCase(c, run);
  QVERIFY2(problem.empty(), (problem + " / stderr: " + run.err).c_str());
}

QTEST_GUILESS_MAIN(TestUpstreamCases)
#include "tst_upstream_cases.moc"
