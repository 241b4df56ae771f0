// A model's config.json read for its layer layout without weights or LibTorch (core/forward/ModelConfig,
// through ModelSpec.h's describeModelConfig, as the app's Layer layout and `snapshot --model-config`
// read it): real checkpoints' layouts and the errors that name the file and the field.
#include "core/forward/LayerAttention.h"
#include "core/forward/ModelSpec.h"

#include <QtTest>

#include <string>

using namespace maskscope;

namespace {

const std::string kData = std::string(MASKSCOPE_TEST_DATA_DIR) + "/engine";

} // namespace

class ModelConfigTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // A config.json alone (no weights) gives the layer layout through the same parser: real
  // checkpoints' configs (tests/data/engine/configs, as published, trimmed of nothing the parser
  // reads), a file or a folder. Expected layouts from transformers' rules, written out by hand:
  // Gemma 2 slides on even layers; Gemma 3 on every layer but each sliding_window_pattern-th.
  void givesTheLayout_data() {
    QTest::addColumn<QString>("path"); // under tests/data/engine
    QTest::addColumn<QString>("summary");
    QTest::newRow("gemma3 1B: pattern 6, layer 5 full")
        << QStringLiteral("configs/gemma3_1b_config.json")
        << QStringLiteral("26 layers: sliding (window 512) 0-4, 6-10, 12-16, 18-22, 24-25; full 5, 11, 17, 23");
    QTest::newRow("gemma2 2B: alternation, soft-capped")
        << QStringLiteral("configs/gemma2_2b_config.json")
        << QStringLiteral("26 layers: sliding (window 4096) 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24; full 1, 3, "
                          "5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25; attention logits soft-capped at 50; final logits "
                          "soft-capped at 30");
    QTest::newRow("a model folder: its config.json")
        << QStringLiteral("gemma3_f32") << QStringLiteral("3 layers: sliding (window 3) 0-1; full 2");
  }
  void givesTheLayout() {
    QFETCH(QString, path);
    QFETCH(QString, summary);
    const ModelInfo info = describeModelConfig(kData + "/" + path.toStdString());
    QCOMPARE(QString::fromStdString(layerAttentionSummary(info)), summary);
    QCOMPARE(info.layerAttention.size(), size_t(info.layers));
    QCOMPARE(info.parameterCount, int64_t(0)); // no weights read
    QVERIFY(info.weightDtype.empty());
  }

  // Unusable configs are refused naming the file (and the field where there is one).
  void errors_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown model_type") << QStringLiteral("configs/unknown_model_type.json")
                                        << QStringLiteral("(model_type): 'gpt2' is not supported");
    QTest::newRow("truncated JSON") << QStringLiteral("configs/truncated.json") << QString();
    QTest::newRow("no such file") << QStringLiteral("configs/absent.json") << QString();
    QTest::newRow("a folder without config.json") << QStringLiteral("configs") << QString();
  }
  void errors() {
    QFETCH(QString, path);
    QFETCH(QString, message);
    std::string got;
    try {
      describeModelConfig(kData + "/" + path.toStdString());
    } catch (const std::runtime_error& e) {
      got = e.what();
    }
    QVERIFY2(!got.empty(), "accepted");
    const QString file = path == QLatin1String("configs") ? QStringLiteral("configs/config.json") : path;
    QVERIFY2(QString::fromStdString(got).contains(file), got.c_str());
    if (!message.isEmpty()) QVERIFY2(QString::fromStdString(got).contains(message), got.c_str());
  }
};

QTEST_GUILESS_MAIN(ModelConfigTest)
#include "tst_model_config.moc"
