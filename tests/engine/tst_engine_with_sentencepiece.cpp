// The product's situation: a binary linking libsentencepiece (protobuf 3.14) loads the LibTorch module
// (protobuf 3.21) with RTLD_DEEPBIND and runs a forward - without the symbol clash crashing it.
#include "core/forward/ForwardEngineLoader.h"
#include "core/forward/ModelSpec.h"

#include <QtTest>

#include <sentencepiece_processor.h>

using namespace maskscope;

class EngineWithSentencepieceTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void sentencepieceThenTorch() {
    // Use sentencepiece first, so its protobuf is initialised in this process.
    sentencepiece::SentencePieceProcessor sp;
    auto status = sp.Load(std::string(MASKSCOPE_SOURCE_DIR) + "/resources/tokenizer/demo.model");
    QVERIFY2(status.ok(), status.ToString().c_str());
    std::vector<int> ids;
    QVERIFY(sp.Encode("Hello there", &ids).ok());
    QVERIFY(!ids.empty());

    std::string error;
    auto engine = loadForwardEngine(&error);
    QVERIFY2(engine, error.c_str());
    ModelSource src;
    src.spec = src.folder = std::string(MASKSCOPE_TEST_DATA_DIR) + "/engine/llama_f32";
    auto model = engine->loadModel(src, "cpu", {});
    ForwardInputs in;
    in.inputIds = IntGrid(1, int64_t(ids.size()));
    for (size_t i = 0; i < ids.size(); ++i) in.inputIds.values[i] = ids[i] % 64;
    in.labels = in.inputIds;
    ForwardOutput out = model->forward(in, {}, false, {});
    QVERIFY(std::isfinite(out.loss));

    // And sentencepiece still works afterwards.
    std::vector<int> again;
    QVERIFY(sp.Encode("Hello there", &again).ok());
    QCOMPARE(again, ids);
  }

  // builtin:tiny (embedded in this binary, trained by tools/model/train_tiny.py) predicts the demo's
  // ChatML text far better than uniform.
  void builtinTinyPredictsDemoText() {
    sentencepiece::SentencePieceProcessor sp;
    QVERIFY(sp.Load(std::string(MASKSCOPE_SOURCE_DIR) + "/resources/tokenizer/demo.model").ok());
    std::vector<int64_t> ids;
    auto add = [&](const std::string& text) {
      std::vector<int> piece;
      QVERIFY(sp.Encode(text, &piece).ok());
      ids.insert(ids.end(), piece.begin(), piece.end());
    };
    ids.push_back(4);
    add("user\nWhat is an attention mask?");
    ids.push_back(5);
    add("\n");
    ids.push_back(4);
    add("assistant\nAn attention mask is a list of ones and zeros, one per token.");
    ids.push_back(5);
    auto model = loadForwardModel("builtin:tiny", "cpu");
    QCOMPARE(model->info().vocabSize, int64_t(sp.GetPieceSize())); // train_tiny.py sizes it to the tokenizer
    ForwardInputs in;
    in.inputIds = IntGrid(1, int64_t(ids.size()));
    in.inputIds.values = ids;
    in.labels = in.inputIds;
    ForwardOutput out = model->forward(in, {}, false, {});
    QVERIFY2(out.loss < 0.5 * std::log(double(sp.GetPieceSize())), qPrintable(QString::number(out.loss)));
  }

  void missingModuleIsAMessage() {
    // A path that does not exist gives the "not found" wording (checked on the search-path list).
    auto paths = forwardEngineSearchPaths();
    QVERIFY(!paths.empty());
    QVERIFY(QString::fromStdString(paths.back()).endsWith(QLatin1String("libmaskscope_torch.so")));
  }
};

QTEST_GUILESS_MAIN(EngineWithSentencepieceTest)
#include "tst_engine_with_sentencepiece.moc"
