// The command line follows the model's layers: `loss --json` lists each layer's kind (sliding with
// its window, or full) and the soft-caps; `snapshot --layer N` draws a sliding layer's band (with
// --model, or --model-config and no weights) and `--window N` draws one without a model; a layer
// outside the model, --window with a model, a bad config are refused with exit 2. Runs the built binary on the tiny
// engine test models (tests/data/engine).
#include "RunMaskscope.h"

#include <QImage>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

namespace {

QString dataFile(const char* relative) {
  return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/") + QString::fromLatin1(relative);
}

const QString kBatch = dataFile("ui/sliding_batch.json"); // ids < 64: fits the tiny models

// Pixels that differ between two images of the same size (-1 when the sizes differ).
int differingPixels(const QImage& a, const QImage& b) {
  if (a.size() != b.size()) return -1;
  int n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) n += a.pixel(x, y) != b.pixel(x, y);
  return n;
}

} // namespace

class TestSlidingCli : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void lossJsonListsLayerKinds_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("layers"); // kind:window:softcap per layer ("-" = null)
    QTest::addColumn<QString>("caps");   // attn:final ("-" = null)
    QTest::newRow("gemma2: sliding then full, both soft-caps")
        << QStringLiteral("engine/gemma2_f32") << QStringLiteral("sliding:4:5 full:-:5") << QStringLiteral("5:3");
    QTest::newRow("mistral: every layer slides")
        << QStringLiteral("engine/mistral_f32") << QStringLiteral("sliding:4:- sliding:4:-") << QStringLiteral("-:-");
    QTest::newRow("llama: full") << QStringLiteral("engine/llama_f32") << QStringLiteral("full:-:- full:-:-")
                                 << QStringLiteral("-:-");
  }
  void lossJsonListsLayerKinds() {
    QFETCH(QString, model);
    QFETCH(QString, layers);
    QFETCH(QString, caps);
    const Run r =
        runMaskscope({QStringLiteral("loss"), QStringLiteral("--model"), dataFile(model.toLatin1().constData()),
                      QStringLiteral("--batch"), kBatch, QStringLiteral("--device"), QStringLiteral("cpu"),
                      QStringLiteral("--no-gradients"), QStringLiteral("--json")});
    QVERIFY2(r.status == 0 || r.status == 1, r.err.constData());
    const auto j = nlohmann::json::parse(r.out.toStdString());
    auto text = [](const nlohmann::json& v) {
      return v.is_null() ? std::string("-") : QString::number(v.get<double>()).toStdString();
    };
    QStringList got;
    for (const auto& l : j["model"]["layer_attention"]) {
      QCOMPARE(l["layer"].get<int>(), int(got.size()));
      got << QString::fromStdString(l["kind"].get<std::string>() + ":" + text(l["window"]) + ":" + text(l["softcap"]));
    }
    QCOMPARE(got.join(QLatin1Char(' ')), layers);
    QCOMPARE(
        QString::fromStdString(text(j["model"]["attn_logit_softcap"]) + ":" + text(j["model"]["final_logit_softcap"])),
        caps);
  }

  // A sliding layer's grid differs from the full layer's (the band); --window draws one without a model.
  void snapshotDrawsTheBand() {
    QTemporaryDir dir;
    auto snap = [&](const QString& name, const QStringList& extra) {
      const QString out = dir.filePath(name);
      const Run r =
          runMaskscope(QStringList{QStringLiteral("snapshot"), QStringLiteral("--view"), QStringLiteral("attention"),
                                   QStringLiteral("--batch"), kBatch, QStringLiteral("--size"),
                                   QStringLiteral("400x400"), QStringLiteral("--out"), out} +
                       extra);
      return r.status == 0 ? QImage(out) : QImage();
    };
    const QString gemma2 = dataFile("engine/gemma2_f32");
    const QImage sliding = snap(QStringLiteral("l0.png"),
                                {QStringLiteral("--model"), gemma2, QStringLiteral("--layer"), QStringLiteral("0")});
    const QImage full = snap(QStringLiteral("l1.png"),
                             {QStringLiteral("--model"), gemma2, QStringLiteral("--layer"), QStringLiteral("1")});
    const QImage plain = snap(QStringLiteral("plain.png"), {});
    const QImage window = snap(QStringLiteral("w4.png"), {QStringLiteral("--window"), QStringLiteral("4")});
    // --model-config: the same layers from the config.json alone, no weights read.
    const QString config = dataFile("engine/gemma2_f32/config.json");
    const QImage configL0 = snap(QStringLiteral("c0.png"), {QStringLiteral("--model-config"), config,
                                                            QStringLiteral("--layer"), QStringLiteral("0")});
    const QImage configL1 = snap(QStringLiteral("c1.png"), {QStringLiteral("--model-config"), config,
                                                            QStringLiteral("--layer"), QStringLiteral("1")});
    for (const QImage* i : {&sliding, &full, &plain, &window, &configL0, &configL1}) QVERIFY(!i->isNull());
    QVERIFY(differingPixels(sliding, full) > 1000); // the band (and the caption)
    QVERIFY(differingPixels(window, plain) > 1000);
    QCOMPARE(differingPixels(configL0, sliding), 0); // the mask grid, caption included, as with the weights
    QCOMPARE(differingPixels(configL1, full), 0);
  }

  void snapshotRefusesWhatItCannotHonour_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("layer outside the model") << QStringList{QStringLiteral("--model"), dataFile("engine/gemma2_f32"),
                                                            QStringLiteral("--layer"), QStringLiteral("2")}
                                             << QStringLiteral("--layer 2 is outside the model (2 layers");
    QTest::newRow("window with a model") << QStringList{QStringLiteral("--model"), dataFile("engine/gemma2_f32"),
                                                        QStringLiteral("--window"), QStringLiteral("3")}
                                         << QStringLiteral("--window is for snapshots without --model");
    QTest::newRow("layer without a model")
        << QStringList{QStringLiteral("--layer"), QStringLiteral("1")} << QStringLiteral("--layer needs --model");
    QTest::newRow("model and model-config")
        << QStringList{QStringLiteral("--model"), dataFile("engine/gemma2_f32"), QStringLiteral("--model-config"),
                       dataFile("engine/gemma2_f32/config.json")}
        << QStringLiteral("--model-config is for snapshots without --model");
    QTest::newRow("window with a model config")
        << QStringList{QStringLiteral("--model-config"), dataFile("engine/gemma2_f32/config.json"),
                       QStringLiteral("--window"), QStringLiteral("3")}
        << QStringLiteral("--window is for snapshots without --model or --model-config");
    QTest::newRow("layer outside the config")
        << QStringList{QStringLiteral("--model-config"), dataFile("engine/configs/gemma3_1b_config.json"),
                       QStringLiteral("--layer"), QStringLiteral("26")}
        << QStringLiteral("--layer 26 is outside the model (26 layers: 0..25)");
    QTest::newRow("unknown model_type, the file named")
        << QStringList{QStringLiteral("--model-config"), dataFile("engine/configs/unknown_model_type.json")}
        << QStringLiteral("unknown_model_type.json (model_type): 'gpt2' is not supported");
    QTest::newRow("negative window") << QStringList{QStringLiteral("--window"), QStringLiteral("-1")}
                                     << QStringLiteral("--window must be 1 or more");
  }
  void snapshotRefusesWhatItCannotHonour() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const Run r = runMaskscope(QStringList{QStringLiteral("snapshot"), QStringLiteral("--batch"), kBatch,
                                           QStringLiteral("--out"), dir.filePath(QStringLiteral("x.png"))} +
                               args);
    QCOMPARE(r.status, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
  }
};

QTEST_MAIN(TestSlidingCli)
#include "tst_sliding_cli.moc"
