// The YAML config reader: scalars resolve as PyYAML's yaml.safe_load and OmegaConf.load resolve
// them (goldens from tools/frameworks/yaml_goldens.py, which runs PyYAML itself), merge keys merge
// in PyYAML's order, and hostile files (aliases that expand, deep nesting, cycles) stop with an
// error naming the file and line, quickly.
#include "core/util/Error.h"
#include "core/yaml/YamlReader.h"

#include <QElapsedTimer>
#include <QTest>
#include <fstream>
#include <sstream>

using namespace maskscope;
using Json = nlohmann::ordered_json;

namespace {

std::string dataPath(const char* name) { return std::string(MASKSCOPE_TEST_DATA_DIR) + "/yaml/" + name; }

Json readJsonFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

// Equal as Python compares the loaded values: same keys, same types (int vs float vs string).
bool sameValue(const Json& a, const Json& b) {
  if (a.is_number_float() || b.is_number_float())
    return a.is_number_float() && b.is_number_float() && a.get<double>() == b.get<double>();
  if (a.is_number_integer() != b.is_number_integer()) return false;
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!b.contains(it.key()) || !sameValue(*it, b[it.key()])) return false;
    return true;
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

} // namespace

class TestYamlReader : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void scalarsMatchThePythonLoaders_data() {
    QTest::addColumn<int>("dialect");
    QTest::addColumn<QString>("golden");
    QTest::newRow("pyyaml-safe-load") << int(yaml::Dialect::PyYaml) << QStringLiteral("scalars.pyyaml.json");
    QTest::newRow("omegaconf-load") << int(yaml::Dialect::OmegaConf) << QStringLiteral("scalars.omegaconf.json");
  }
  void scalarsMatchThePythonLoaders() {
    QFETCH(int, dialect);
    QFETCH(QString, golden);
    const Json got = yaml::readYamlFile(dataPath("scalars.yml"), yaml::Dialect(dialect));
    const Json want = readJsonFile(dataPath(golden.toUtf8().constData()));
    QCOMPARE(got.size(), want.size());
    for (auto it = want.begin(); it != want.end(); ++it) {
      QVERIFY2(got.contains(it.key()), it.key().c_str());
      QVERIFY2(sameValue(got[it.key()], *it),
               (it.key() + ": got " + got[it.key()].dump() + ", Python loads " + it->dump()).c_str());
    }
  }

  // Key order matters: the spec's options and the prepared rows keep it.
  void mergeKeysMergeInPyYamlOrder() {
    const Json got = yaml::readYamlFile(dataPath("merge.yml"), yaml::Dialect::PyYaml);
    const Json want = readJsonFile(dataPath("merge.expected.json"));
    QCOMPARE(QString::fromStdString(got.dump()), QString::fromStdString(want.dump()));
  }

  void refusedWithFileAndLine_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("dialect");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("line");
    const int py = int(yaml::Dialect::PyYaml), omega = int(yaml::Dialect::OmegaConf);
    QTest::newRow("billion-laughs") << "laughs.yml" << py << "expands to more than 100000 values" << 3;
    QTest::newRow("deep-flow-nesting") << "deep_flow.yml" << py << "nests deeper than the limit of 64" << 2;
    QTest::newRow("deep-block-nesting") << "deep_block.yml" << py << "nests deeper than the limit of 64" << 33;
    QTest::newRow("alias-cycle") << "self_alias.yml" << py << "nests deeper than the limit" << 2;
    QTest::newRow("two-documents") << "two_docs.yml" << py << "more than one YAML document" << -1;
    QTest::newRow("python-tag") << "python_tag.yml" << py << "unsupported YAML tag" << 3;
    QTest::newRow("duplicate-key-omegaconf") << "duplicate_key.yml" << omega << "found duplicate key sequence_len" << 3;
    QTest::newRow("mapping-in-a-plain-value") << "bad_mapping.yml" << py << "invalid YAML" << 3;
  }
  void refusedWithFileAndLine() {
    QFETCH(QString, file);
    QFETCH(int, dialect);
    QFETCH(QString, message);
    QFETCH(int, line);
    const std::string path = dataPath(file.toUtf8().constData());
    QElapsedTimer timer;
    timer.start();
    try {
      yaml::readYamlFile(path, yaml::Dialect(dialect));
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(QString::fromStdString(e.message()).contains(message), e.message().c_str());
      QCOMPARE(QString::fromStdString(e.where().file), QString::fromStdString(path));
      if (line > 0) QCOMPARE(int(e.where().line), line);
    }
    QVERIFY2(timer.elapsed() < 1000, "a hostile YAML file must be refused in well under a second");
  }

  // PyYAML keeps the last of two equal keys (and so does the reader in that dialect).
  void duplicateKeyLastWinsInPyYaml() {
    const Json got = yaml::readYamlFile(dataPath("duplicate_key.yml"), yaml::Dialect::PyYaml);
    QCOMPARE(got["sequence_len"].get<int64_t>(), int64_t(1024));
  }

  void textOverTheSizeCapIsRefusedBeforeParsing() {
    const std::string big(size_t(yaml::kMaxYamlBytes) + 1, '#');
    QVERIFY_THROWS_EXCEPTION(Error, yaml::parseYaml(big, "big.yml", yaml::Dialect::PyYaml));
  }
};

QTEST_APPLESS_MAIN(TestYamlReader)
#include "tst_yaml_reader.moc"
