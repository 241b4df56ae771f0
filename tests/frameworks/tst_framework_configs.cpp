// Framework config files as --collator: an Axolotl YAML becomes the spec Axolotl's loader would act
// on (first datasets entry, the batch-shaping top-level keys, YAML-empty keys unset), and configs
// that cannot be reproduced are refused naming the file and key.
#include "core/frameworks/FrameworkSpec.h"
#include "core/frameworks/axolotl/AxolotlConfigFile.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace maskscope;

namespace {

std::string dataPath(const char* name) { return std::string(MASKSCOPE_TEST_DATA_DIR) + "/frameworks-config/" + name; }

} // namespace

class TestFrameworkConfigs : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // The spec keeps Axolotl's key order: the dataset entry's keys, then the top-level ones.
  void axolotlYamlBecomesTheSpec() {
    const std::string path = dataPath("axolotl-qwen3.yml");
    const auto spec = axolotl::readAxolotlConfig(path, readFileCapped(path));
    QVERIFY(spec.has_value());
    const auto want = nlohmann::ordered_json::parse(readFileCapped(dataPath("axolotl-spec-expected.json")));
    QCOMPARE(QString::fromStdString(spec->dump()), QString::fromStdString(want.dump()));
  }

  void parsedThroughTheRegistry() {
    const FrameworkSpec s = parseFrameworkSpec(dataPath("axolotl-qwen3.yml"));
    QCOMPARE(QString::fromStdString(s.framework), QStringLiteral("axolotl"));
    QCOMPARE(QString::fromStdString(s.version), QStringLiteral("0.18"));
    QCOMPARE(QString::fromStdString(s.type), QStringLiteral("chat_template"));
    QCOMPARE(s.integer("sequence_len"), int64_t(2048));
    QCOMPARE(s.options["roles_to_train"].dump(), std::string(R"(["gpt"])"));
    QVERIFY(s.flag("sample_packing"));
    QVERIFY(!s.flag("split_thinking")); // empty in the YAML: unset, the default applies
  }

  // processor_type: the spec is MultiModalChatDataCollator's, with the top-level chat_template (the
  // dataset's llama3 is not what build_collator reads) and without the keys that path ignores.
  void axolotlMultimodalYaml() {
    const std::string path = dataPath("axolotl-qwen2vl.yml");
    const auto spec = axolotl::readAxolotlConfig(path, readFileCapped(path));
    QVERIFY(spec.has_value());
    const auto want = nlohmann::ordered_json::parse(readFileCapped(dataPath("axolotl-qwen2vl-spec-expected.json")));
    QCOMPARE(QString::fromStdString(spec->dump()), QString::fromStdString(want.dump()));
    const FrameworkSpec s = parseFrameworkSpec(path);
    QCOMPARE(QString::fromStdString(s.collator), QStringLiteral("MultiModalChatDataCollator"));
  }

  void datasetTemplateWins() {
    const FrameworkSpec s = parseFrameworkSpec(dataPath("axolotl-dataset-template.yml"));
    QCOMPARE(QString::fromStdString(s.string("chat_template")), QStringLiteral("llama3"));
  }

  void refused_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("field");
    QTest::newRow("dataset-type-alpaca") << "axolotl-alpaca.yml"
                                         << "unknown axolotl type \"alpaca\""
                                         << "type";
    QTest::newRow("batch-flattening") << "axolotl-batch-flattening.yml"
                                      << "sets batch_flattening"
                                      << "batch_flattening";
    QTest::newRow("unknown-dataset-key") << "axolotl-unknown-key.yml"
                                         << "roles_to_trian"
                                         << "roles_to_trian";
    QTest::newRow("not-a-framework-config") << "not-a-framework.yml"
                                            << "no framework recognises this config file"
                                            << "";
  }
  void refused() {
    QFETCH(QString, file);
    QFETCH(QString, message);
    QFETCH(QString, field);
    const std::string path = dataPath(file.toUtf8().constData());
    try {
      parseFrameworkSpec(path);
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(QString::fromStdString(e.message()).contains(message), e.message().c_str());
      QCOMPARE(QString::fromStdString(e.where().file), QString::fromStdString(path));
      if (!field.isEmpty()) QCOMPARE(QString::fromStdString(e.where().field), field);
    }
  }
};

QTEST_APPLESS_MAIN(TestFrameworkConfigs)
#include "tst_framework_configs.moc"
