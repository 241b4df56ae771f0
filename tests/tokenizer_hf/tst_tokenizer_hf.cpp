// Tests of core/tokenizer/hf: every golden string of Qwen3, Llama-3, Llama-2 and Gemma-3 (ids,
// tokens, byte offsets from @huggingface/tokenizers, tests/data/tokenizer_hf/*.json), special
// tokens from tokenizer_config.json, decoding, concurrency, small synthetic tokenizers for the
// components those four do not use, and hostile files.
#include "core/tokenizer/hf/HfTokenizerLoader.h"
#include "core/util/Error.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

using namespace maskscope;
using nlohmann::json;

namespace {

const char* kModels[] = {"qwen3", "llama3", "llama2", "gemma3"};

std::string cacheDir() {
  if (const char* env = std::getenv("MASKSCOPE_TOKENIZER_CACHE")) return env;
  return MASKSCOPE_TOKENIZER_CACHE;
}
std::string modelDir(const std::string& model) { return cacheDir() + "/" + model; }

json readJson(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return json::parse(ss.str());
}

// Loaded once per model for the whole run (Gemma-3's file is 33 MB).
std::shared_ptr<Tokenizer> tokenizerFor(const std::string& model) {
  static std::map<std::string, std::shared_ptr<Tokenizer>> loaded;
  auto it = loaded.find(model);
  if (it != loaded.end()) return it->second;
  auto t = loadHuggingFaceTokenizer(modelDir(model) + "/tokenizer.json");
  loaded[model] = t;
  return t;
}

bool allowMissing() {
  const char* v = std::getenv("MASKSCOPE_ALLOW_MISSING_TOKENIZERS");
  return v && std::string(v) == "1";
}

QString q(const std::string& s) { return QString::fromStdString(s); }

std::string writeTemp(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.path().toStdString() + "/" + name;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string syntheticFile(const std::string& name) {
  return std::string(MASKSCOPE_TEST_DATA_DIR) + "/tokenizer_hf/synthetic/" + name;
}

// A small BPE ("hello world" style) used by several synthetic tests.
json tinyBpe() { return readJson(syntheticFile("tiny_bpe.json")); }

std::string missingMessage(const std::string& model) {
  return "tokenizer folder " + modelDir(model) + " is missing: run tools/fetch-tokenizers.sh" +
         " (or set MASKSCOPE_ALLOW_MISSING_TOKENIZERS=1 to skip)";
}

} // namespace

// Fails (or, with MASKSCOPE_ALLOW_MISSING_TOKENIZERS=1, skips) when the fetched tokenizer is missing.
#define REQUIRE_MODEL(model)                                                                                           \
  do {                                                                                                                 \
    if (!std::filesystem::exists(modelDir(model) + "/tokenizer.json")) {                                               \
      const std::string msg_ = missingMessage(model);                                                                  \
      if (allowMissing()) QSKIP(msg_.c_str());                                                                         \
      QFAIL(msg_.c_str());                                                                                             \
    }                                                                                                                  \
  } while (0)

class TestTokenizerHf : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void goldens_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("index");
    for (const char* model : kModels) {
      const std::string path = std::string(MASKSCOPE_TEST_DATA_DIR) + "/tokenizer_hf/" + model + ".json";
      json g = readJson(path);
      int i = 0;
      for (const json& c : g["cases"]) {
        const std::string name = std::string(model) + "/" + c["name"].get<std::string>();
        QTest::newRow(name.c_str()) << QString::fromLatin1(model) << i++;
      }
    }
  }

  void goldens() {
    QFETCH(QString, model);
    QFETCH(int, index);
    const std::string m = model.toStdString();
    REQUIRE_MODEL(m);
    static std::map<std::string, json> goldenFiles;
    if (!goldenFiles.count(m))
      goldenFiles[m] = readJson(std::string(MASKSCOPE_TEST_DATA_DIR) + "/tokenizer_hf/" + m + ".json");
    const json& c = goldenFiles[m]["cases"][size_t(index)];
    auto tok = tokenizerFor(m);
    EncodeOptions opt;
    opt.addSpecialTokens = c["add_special_tokens"].get<bool>();
    opt.splitSpecialTokens = c["split_special_tokens"].get<bool>();
    const std::string text = c["text"].get<std::string>();
    Encoding enc = tok->encode(text, opt);
    std::vector<int32_t> expectIds = c["ids"].get<std::vector<int32_t>>();
    std::vector<std::string> expectTokens = c["tokens"].get<std::vector<std::string>>();
    std::vector<int32_t> gotIds = enc.ids;
    if (gotIds != expectIds) {
      std::ostringstream os;
      os << "ids differ for " << json(text).dump() << "\n got:    " << json(enc.tokens).dump()
         << "\n expect: " << json(expectTokens).dump();
      QFAIL(os.str().c_str());
    }
    QCOMPARE(enc.tokens, expectTokens);
    QCOMPARE(enc.offsets.size(), enc.ids.size());
    QCOMPARE(enc.special.size(), enc.ids.size());
    for (size_t i = 0; i < enc.size(); ++i) {
      const auto& o = c["offsets"][i];
      if (enc.offsets[i].begin != o[0].get<int64_t>() || enc.offsets[i].end != o[1].get<int64_t>()) {
        std::ostringstream os;
        os << "offset of token " << i << " " << json(enc.tokens[i]).dump() << " in " << json(text).dump() << ": got ["
           << enc.offsets[i].begin << ", " << enc.offsets[i].end << "), expected " << o.dump();
        QFAIL(os.str().c_str());
      }
    }
  }

  void specialTokens_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("bos");
    QTest::addColumn<QString>("eos");
    QTest::addColumn<QString>("pad");
    QTest::addColumn<int>("eosId");
    QTest::newRow("qwen3") << "qwen3"
                           << ""
                           << "<|im_end|>"
                           << "<|endoftext|>" << 151645;
    QTest::newRow("llama3") << "llama3"
                            << "<|begin_of_text|>"
                            << "<|end_of_text|>"
                            << "" << 128001;
    QTest::newRow("llama2") << "llama2"
                            << "<s>"
                            << "</s>"
                            << "" << 2;
    QTest::newRow("gemma3") << "gemma3"
                            << "<bos>"
                            << "<end_of_turn>"
                            << "<pad>" << 106;
  }
  void specialTokens() {
    QFETCH(QString, model);
    QFETCH(QString, bos);
    QFETCH(QString, eos);
    QFETCH(QString, pad);
    QFETCH(int, eosId);
    REQUIRE_MODEL(model.toStdString());
    auto tok = tokenizerFor(model.toStdString());
    SpecialTokenIds s = tok->specialTokens();
    QCOMPARE(q(s.bosText), bos);
    QCOMPARE(q(s.eosText), eos);
    QCOMPARE(q(s.padText), pad);
    QCOMPARE(s.eos.value_or(-1), eosId);
    QCOMPARE(s.bos.has_value(), !bos.isEmpty());
    QCOMPARE(s.pad.has_value(), !pad.isEmpty());
    QVERIFY(tok->isSpecial(eosId));
    QCOMPARE(tok->kind(), std::string("huggingface"));
    QCOMPARE(q(tok->idToToken(eosId)), eos);
    QCOMPARE(tok->tokenToId(eos.toStdString()).value_or(-1), eosId);
    auto strings = tok->specialTokenStrings();
    QVERIFY(std::find(strings.begin(), strings.end(), eos.toStdString()) != strings.end());
    QVERIFY(tok->vocabSize() > eosId);
  }

  void displayAndDecode_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("decoded"); // decode(encode(text)); empty: same as text
    QTest::addColumn<QString>("secondTokenDisplay");
    QTest::newRow("qwen3") << "qwen3"
                           << "Hello world\nagain 😀"
                           << ""
                           << " world";
    QTest::newRow("llama3") << "llama3"
                            << "Hello world\nagain 😀"
                            << ""
                            << " world";
    QTest::newRow("llama2") << "llama2"
                            << "Hello world\nagain 😀"
                            << ""
                            << " world";
    QTest::newRow("gemma3") << "gemma3"
                            << "Hello world\nagain 😀"
                            << ""
                            << " world";
    QTest::newRow("qwen3-nfc") << "qwen3" << QString::fromUtf8("cafe\u0301 x") << QString::fromUtf8("café x")
                               << QString::fromUtf8("fé");
  }
  void displayAndDecode() {
    QFETCH(QString, model);
    QFETCH(QString, text);
    QFETCH(QString, decoded);
    QFETCH(QString, secondTokenDisplay);
    REQUIRE_MODEL(model.toStdString());
    auto tok = tokenizerFor(model.toStdString());
    Encoding enc = tok->encode(text.toStdString());
    QVERIFY(enc.size() >= 2);
    QCOMPARE(q(tok->decode(enc.ids)), decoded.isEmpty() ? text : decoded);
    QCOMPARE(q(tok->displayText(enc.ids[1])), secondTokenDisplay);
    // Special tokens are skipped on request and shown as themselves.
    Encoding withSpecial = tok->encode(text.toStdString() + tok->specialTokens().eosText);
    QCOMPARE(q(tok->decode(withSpecial.ids, true)), decoded.isEmpty() ? text : decoded);
    QCOMPARE(q(tok->displayText(withSpecial.ids.back())), q(tok->specialTokens().eosText));
    QCOMPARE(int(withSpecial.special.back()), 1);
  }

  void byteFallbackDisplay() {
    REQUIRE_MODEL("llama2");
    auto tok = tokenizerFor("llama2");
    auto id = tok->tokenToId("<0x0A>");
    QVERIFY(id.has_value());
    QCOMPARE(tok->displayText(*id), std::string("\n"));
    QCOMPARE(tok->displayText(tok->tokenToId("\xE2\x96\x81Hello").value()), std::string(" Hello"));
  }

  void concurrentEncode() {
    REQUIRE_MODEL("qwen3");
    auto tok = tokenizerFor("qwen3");
    json g = readJson(std::string(MASKSCOPE_TEST_DATA_DIR) + "/tokenizer_hf/qwen3.json");
    std::vector<std::string> texts;
    for (const json& c : g["cases"]) texts.push_back(c["text"].get<std::string>());
    std::vector<std::vector<int32_t>> expect;
    for (const auto& t : texts) expect.push_back(tok->encode(t).ids);
    std::atomic<int> mismatches{0};
    auto work = [&] {
      for (int round = 0; round < 20; ++round)
        for (size_t i = 0; i < texts.size(); ++i)
          if (tok->encode(texts[i]).ids != expect[i]) ++mismatches;
    };
    std::thread a(work), b(work);
    a.join();
    b.join();
    QCOMPARE(mismatches.load(), 0);
  }

  void offsetsTileText() {
    // Without normalization every byte of the text belongs to exactly one token, in order.
    REQUIRE_MODEL("llama3");
    auto tok = tokenizerFor("llama3");
    const std::string text = "emoji 😀 and 𠀀 rare and 👨‍👩‍👧 done";
    Encoding enc = tok->encode(text);
    int64_t pos = 0;
    for (const ByteSpan& o : enc.offsets) {
      QCOMPARE(o.begin, pos);
      QVERIFY(o.end > o.begin);
      pos = o.end;
    }
    QCOMPARE(pos, int64_t(text.size()));
  }

  // Each case of synthetic/cases.json: a patch merged into tiny_bpe.json, a text, and the ids and
  // byte offsets @huggingface/tokenizers gives.
  void synthetic_data() {
    QTest::addColumn<int>("index");
    const json cases = readJson(syntheticFile("cases.json"));
    for (size_t i = 0; i < cases.size(); ++i) QTest::newRow(cases[i]["name"].get<std::string>().c_str()) << int(i);
  }
  void synthetic() {
    QFETCH(int, index);
    static const json cases = readJson(syntheticFile("cases.json"));
    const json& c = cases[size_t(index)];
    json j = tinyBpe();
    j.merge_patch(c["patch"]);
    QTemporaryDir dir;
    auto tok = loadHuggingFaceTokenizer(writeTemp(dir, "tokenizer.json", j.dump()));
    Encoding enc = tok->encode(c["text"].get<std::string>());
    QCOMPARE(q(json(enc.ids).dump()), q(c["ids"].dump()));
    json offs = json::array();
    for (const ByteSpan& o : enc.offsets) offs.push_back({o.begin, o.end});
    QCOMPARE(q(offs.dump()), q(c["offsets"].dump()));
  }

  void templateAddsSpecial() {
    json j = tinyBpe();
    j["post_processor"] = readJson(syntheticFile("template_a_sequence_b.json"));
    QTemporaryDir dir;
    auto tok = loadHuggingFaceTokenizer(writeTemp(dir, "tokenizer.json", j.dump()));
    EncodeOptions opt;
    opt.addSpecialTokens = true;
    Encoding enc = tok->encode("c", opt);
    QCOMPARE(enc.ids, (std::vector<int32_t>{10, 3, 6}));
    QCOMPARE(enc.offsets[0], (ByteSpan{0, 0}));
    QCOMPARE(int(enc.special[0]), 1);
    QCOMPARE(int(enc.special[1]), 0);
  }

  void configAddsEos() {
    // transformers' Llama fast tokenizer rebuilds its template from add_bos_token/add_eos_token.
    json j = tinyBpe();
    j["added_tokens"] = readJson(syntheticFile("llama_added_tokens.json"));
    QTemporaryDir dir;
    std::string path = writeTemp(dir, "tokenizer.json", j.dump());
    writeTemp(dir, "tokenizer_config.json", readJson(syntheticFile("llama_tokenizer_config.json")).dump());
    auto tok = loadHuggingFaceTokenizer(path);
    EncodeOptions opt;
    opt.addSpecialTokens = true;
    QCOMPARE(tok->encode("ab", opt).ids, (std::vector<int32_t>{11, 4, 12}));
    QCOMPARE(tok->encode("ab").ids, (std::vector<int32_t>{4}));
    QCOMPARE(tok->specialTokens().bos.value_or(-1), 11);
    QVERIFY(!tok->specialTokens().pad.has_value());
    // With splitSpecialTokens the special strings are text.
    opt.addSpecialTokens = false;
    opt.splitSpecialTokens = true;
    QCOMPARE(tok->encode("<s>", opt).ids, (std::vector<int32_t>{0}));
  }

  void hostile_data() {
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("expectInMessage");
    const std::string good = tinyBpe().dump();
    QTest::newRow("truncated") << q(good.substr(0, good.size() / 2)) << "invalid JSON";
    QTest::newRow("empty") << ""
                           << "invalid JSON";
    QTest::newRow("not-object") << "[1,2]"
                                << "object";
    // Each entry of synthetic/hostile_patches.json: a patch that breaks tiny_bpe.json, and what the
    // error message must say.
    for (const json& h : readJson(syntheticFile("hostile_patches.json"))) {
      json j = tinyBpe();
      j.merge_patch(h["patch"]);
      QTest::newRow(h["name"].get<std::string>().c_str()) << q(j.dump()) << q(h["message"].get<std::string>());
    }
  }
  void hostile() {
    QFETCH(QString, content);
    QFETCH(QString, expectInMessage);
    QTemporaryDir dir;
    std::string path = writeTemp(dir, "tokenizer.json", content.toStdString());
    try {
      loadHuggingFaceTokenizer(path);
      QFAIL("loading should have failed");
    } catch (const Error& e) {
      QVERIFY2(q(e.message()).contains(expectInMessage), e.what());
      QCOMPARE(q(e.where().file), q(path));
    }
  }

  // Each case of synthetic/amplifying_normalizers.json: normalizers that would amplify the text are
  // refused at the first step over the limit (16x the input + 256 bytes), naming the file and the
  // normalizer, in milliseconds; what real tokenizers do (Llama's Prepend + Replace, 3x) passes.
  void amplifyingNormalizers_data() {
    QTest::addColumn<int>("index");
    const json cases = readJson(syntheticFile("amplifying_normalizers.json"));
    for (size_t i = 0; i < cases.size(); ++i) QTest::newRow(cases[i]["name"].get<std::string>().c_str()) << int(i);
  }
  void amplifyingNormalizers() {
    QFETCH(int, index);
    static const json cases = readJson(syntheticFile("amplifying_normalizers.json"));
    const json& c = cases[size_t(index)];
    json j = tinyBpe();
    j.merge_patch(c["patch"]);
    QTemporaryDir dir;
    const std::string path = writeTemp(dir, "tokenizer.json", j.dump());
    auto tok = loadHuggingFaceTokenizer(path);
    const std::string text = c["text"].get<std::string>();
    QElapsedTimer clock;
    clock.start();
    if (!c["refused"].get<bool>()) {
      QVERIFY(tok->encode(text).size() > 0);
      return;
    }
    try {
      tok->encode(text);
      QFAIL("an amplifying normalizer was run");
    } catch (const Error& e) {
      QVERIFY2(q(e.message()).contains(QStringLiteral("normalizer amplifies the text")), e.what());
      QCOMPARE(q(e.where().file), q(path));
      QCOMPARE(q(e.where().field), q(c["field"].get<std::string>()));
      QVERIFY2(q(e.what()).contains(q(path + " (" + c["field"].get<std::string>() + "): the ")), e.what());
    }
    QVERIFY2(clock.elapsed() < 200, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));
  }

  // An added token (normalized: true) goes through the normalizer when the file loads, so an
  // amplifying normalizer is refused there already.
  void amplifyingNormalizerOnAddedTokens() {
    json j = tinyBpe();
    j.merge_patch(readJson(syntheticFile("amplifying_normalizers.json"))[0]["patch"]);
    j["added_tokens"] = json::array({{{"id", 9}, {"content", "aaaaaaaaaa"}, {"special", false}, {"normalized", true}}});
    QTemporaryDir dir;
    const std::string path = writeTemp(dir, "tokenizer.json", j.dump());
    try {
      loadHuggingFaceTokenizer(path);
      QFAIL("loaded");
    } catch (const Error& e) {
      QVERIFY2(q(e.message()).contains(QStringLiteral("the Replace normalizer amplifies the text")), e.what());
      QCOMPARE(q(e.where().file), q(path));
    }
  }

  void hostileLocation() {
    QTemporaryDir dir;
    std::ifstream in(syntheticFile("bad_location.json"), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf(); // an error on line 3
    std::string path = writeTemp(dir, "tokenizer.json", text.str());
    try {
      loadHuggingFaceTokenizer(path);
      QFAIL("loading should have failed");
    } catch (const Error& e) {
      QCOMPARE(e.where().line, 3L);
      QVERIFY(e.where().column > 0);
    }
  }

  void fileSizeCap() {
    QTemporaryDir dir;
    std::string path = dir.path().toStdString() + "/tokenizer.json";
    { std::ofstream(path) << "{}"; }
    std::filesystem::resize_file(path, uintmax_t(300) << 20); // sparse: no disk used
    QVERIFY_THROWS_EXCEPTION(Error, loadHuggingFaceTokenizer(path));
  }

  void invalidUtf8Text() {
    QTemporaryDir dir;
    auto tok = loadHuggingFaceTokenizer(writeTemp(dir, "tokenizer.json", tinyBpe().dump()));
    QVERIFY_THROWS_EXCEPTION(Error, tok->encode(std::string("ab\xFF", 3)));
    QCOMPARE(tok->encode("").size(), size_t(0));
  }

  void loadTime() {
    REQUIRE_MODEL("qwen3");
    QElapsedTimer t;
    t.start();
    auto tok = loadHuggingFaceTokenizer(modelDir("qwen3") + "/tokenizer.json");
    qInfo("Qwen3 tokenizer.json loaded in %lld ms", t.elapsed());
    QVERIFY(tok->vocabSize() > 150000);
  }
};

QTEST_GUILESS_MAIN(TestTokenizerHf)
#include "tst_tokenizer_hf.moc"
