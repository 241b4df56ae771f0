// Lint on LLaMA-Factory and torchtune batches, each rule with a case that fires and one that stays
// quiet: torchtune's pre-shifted labels (labels[t] = tokens[t+1]) read as a Hugging Face dump fire
// labels-preshifted, read through a torchtune 0.7.0 spec they are shifted back and the rule is quiet;
// LLaMA-Factory's packing without neat_packing fires packing-depends-on-attention with LLaMA-Factory's fix;
// neat_packing under sdpa (4-D mask) is quiet, under fa2 (one padding-free row) a warning without it. Fixtures:
// tests/data/frameworks/lint/. Axolotl's multimodal path: Gemma3ProcessingStrategy under
// train_on_inputs grades <end_of_image> (image-tokens-graded), Qwen2VLProcessingStrategy does not.
// torchtune 0.7.0 message rows: OpenAIToMessages drops tool_calls (tools-not-rendered; no tool positions, so
// the tool-call / tool-output rules stay quiet), and a message's mask grades the assistant header.
#include "../TokenizerCacheRequired.h"
#include "core/batchio/BatchLoader.h"
#include "core/commands/BatchInputs.h"
#include "core/lint/Lint.h"

#include <QTest>
#include <filesystem>

using namespace maskscope;

namespace {

const std::string kDir = MASKSCOPE_TEST_DATA_DIR "/frameworks/lint/";

LintReport lintSpec(const std::string& data, const std::string& spec, const std::string& tokenizer = {}) {
  BatchInputs in;
  in.dataSpec = kDir + data;
  in.collatorSpec = spec;
  in.tokenizerSpec = tokenizer;
  in.lenientFramework = true;
  return lintBatch(buildBatch(in));
}

std::vector<const Finding*> findings(const LintReport& r, const std::string& rule) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings)
    if (f.rule == rule) out.push_back(&f);
  return out;
}

std::string describe(const LintReport& r) {
  std::string s;
  for (const Finding& f : r.findings) s += "\n  " + f.rule + ": " + f.message;
  return s.empty() ? "\n  (no findings)" : s;
}

const char* kTorchtune07 = R"({"framework": "torchtune", "version": "0.7.0"})";
const char* kTorchtune061 = R"({"framework": "torchtune", "version": "0.6.1"})";
const char* kLfPacking = R"({"framework": "llamafactory", "template": "chatml", "packing": true, "cutoff_len": 64})";
const char* kLfNeat = R"({"framework": "llamafactory", "template": "chatml", "neat_packing": true, "cutoff_len": 64})";
const char* kLfNeatFa2 =
    R"({"framework": "llamafactory", "template": "chatml", "neat_packing": true, "cutoff_len": 64, "flash_attn": "fa2"})";
const char* kAxolotlGemma3Inputs = R"({"framework": "axolotl", "type": "chat_template", "collator":
    "MultiModalChatDataCollator", "chat_template": "gemma3", "train_on_inputs": true})";
const char* kAxolotlQwen2vl = R"({"framework": "axolotl", "type": "chat_template", "collator":
    "MultiModalChatDataCollator", "chat_template": "qwen2_vl"})";
const char* kTorchtuneMessages = R"({"framework": "torchtune", "model_tokenizer": "qwen2_5"})";
const std::string kCache = MASKSCOPE_TOKENIZER_CACHE;

} // namespace

class TestFrameworkLint : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void rules_data();
  void rules();
  void torchtuneLabelsShiftedBack();
};

void TestFrameworkLint::rules_data() {
  QTest::addColumn<QString>("rule");
  QTest::addColumn<QString>("data");
  QTest::addColumn<QString>("spec");
  QTest::addColumn<QString>("tokenizer");
  QTest::addColumn<bool>("fires");
  QTest::addColumn<QString>("mentions");
  QTest::newRow("labels-preshifted fires: torchtune dump read as HF") << "labels-preshifted"
                                                                      << "torchtune_dump.json"
                                                                      << ""
                                                                      << "" << true << "torchtune";
  QTest::newRow("labels-preshifted fires: torchtune 0.7 rows read as 0.6.1")
      << "labels-preshifted"
      << "torchtune_rows.jsonl" << kTorchtune061 << "" << true << "";
  QTest::newRow("labels-preshifted quiet: torchtune 0.7 rows read as 0.7.0")
      << "labels-preshifted"
      << "torchtune_rows.jsonl" << kTorchtune07 << "" << false << "";
  QTest::newRow("label-not-input-id quiet: torchtune 0.7 rows read as 0.7.0")
      << "label-not-input-id"
      << "torchtune_rows.jsonl" << kTorchtune07 << "" << false << "";
  // Its position_ids restart, so flash_attention_2 would keep the examples apart: the leak under the
  // assumed sdpa is packing-depends-on-attention's, with LLaMA-Factory's own fix.
  QTest::newRow("packing-depends-on-attention fires: LLaMA-Factory packing without neat_packing")
      << "packing-depends-on-attention"
      << "lf_chat.jsonl" << kLfPacking << "builtin:demo" << true << "neat_packing";
  QTest::newRow("packing-cross-attention quiet: LLaMA-Factory neat_packing (sdpa, 4-D mask)")
      << "packing-cross-attention"
      << "lf_chat.jsonl" << kLfNeat << "builtin:demo" << false << "";
  // Under fa2 neat_packing gives one padding-free row: the rule says it holds only under varlen attention
  // (a warning, without the neat_packing advice).
  QTest::newRow("packing-cross-attention warns: LLaMA-Factory neat_packing under fa2 (padding-free)")
      << "packing-cross-attention"
      << "lf_chat.jsonl" << kLfNeatFa2 << "builtin:demo" << true << "flash_attention_2";
  QTest::newRow("image-tokens-graded fires: Axolotl Gemma 3 train_on_inputs keeps <end_of_image>")
      << "image-tokens-graded"
      << "axolotl_mm_gemma3.jsonl" << kAxolotlGemma3Inputs << QString::fromStdString(kCache + "/gemma3") << true
      << "1 of 258 image positions";
  QTest::newRow("image-tokens-graded quiet: Axolotl Qwen2VLProcessingStrategy")
      << "image-tokens-graded"
      << "axolotl_mm_qwen.jsonl" << kAxolotlQwen2vl << QString::fromStdString(kCache + "/qwen3") << false << "";
  QTest::newRow("tools-not-rendered fires: torchtune drops an assistant's tool_calls")
      << "tools-not-rendered"
      << "torchtune_tool_call.jsonl" << kTorchtuneMessages << "builtin:demo" << true << "OpenAIToMessages";
  QTest::newRow("tools-not-rendered quiet: torchtune message rows without tool calls")
      << "tools-not-rendered"
      << "torchtune_messages.jsonl" << kTorchtuneMessages << "builtin:demo" << false << "";
  QTest::newRow("tool-call-not-graded quiet: torchtune keeps no tool-call position")
      << "tool-call-not-graded"
      << "torchtune_tool_call.jsonl" << kTorchtuneMessages << "builtin:demo" << false << "";
  QTest::newRow("tool-output-graded quiet: torchtune keeps no tool-output position")
      << "tool-output-graded"
      << "torchtune_tool_call.jsonl" << kTorchtuneMessages << "builtin:demo" << false << "";
  QTest::newRow("prompt-graded fires: torchtune grades the assistant header with its reply")
      << "prompt-graded"
      << "torchtune_messages.jsonl" << kTorchtuneMessages << "builtin:demo" << true << "prompt positions are graded";
}

void TestFrameworkLint::rules() {
  QFETCH(QString, rule);
  QFETCH(QString, data);
  QFETCH(QString, spec);
  QFETCH(QString, tokenizer);
  QFETCH(bool, fires);
  QFETCH(QString, mentions);
  if (tokenizer.startsWith(QString::fromStdString(kCache)))
    REQUIRE_TOKENIZER_CACHE(std::filesystem::exists(tokenizer.toStdString() + "/tokenizer.json"));
  const LintReport r = spec.isEmpty() ? lintBatch(loadBatchDump(kDir + data.toStdString()))
                                      : lintSpec(data.toStdString(), spec.toStdString(), tokenizer.toStdString());
  const auto hits = findings(r, rule.toStdString());
  QVERIFY2(hits.empty() != fires, describe(r).c_str());
  if (fires && !mentions.isEmpty())
    QVERIFY2(hits.front()->message.find(mentions.toStdString()) != std::string::npos, hits.front()->message.c_str());
  if (fires && spec.contains(QStringLiteral("\"neat_packing\": true"))) {
    QCOMPARE(hits.front()->severity, Severity::Warning);
    QVERIFY2(hits.front()->message.find("set neat_packing") == std::string::npos, hits.front()->message.c_str());
  }
  if (fires && spec.contains(QStringLiteral("\"neat_packing\": true"))) {
    QCOMPARE(hits.front()->severity, Severity::Warning);
    QVERIFY2(hits.front()->message.find("set neat_packing") == std::string::npos, hits.front()->message.c_str());
  }
}

// What the conversion does to torchtune 0.7.0's labels: label t of the Hugging Face convention is
// torchtune's label t - 1, so the graded ids sit on the tokens they name.
void TestFrameworkLint::torchtuneLabelsShiftedBack() {
  BatchInputs in;
  in.dataSpec = kDir + "torchtune_rows.jsonl";
  in.collatorSpec = kTorchtune07;
  const Batch b = buildBatch(in);
  QCOMPARE(b.batchSize(), int64_t(2));
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    QCOMPARE(b.labels.at(r, 0), kIgnoreIndex);
    for (int64_t t = 0; t < b.length(); ++t)
      if (b.labels.at(r, t) != kIgnoreIndex) QCOMPARE(b.labels.at(r, t), b.inputIds.at(r, t));
  }
  // Row 1 grades 52 and the EOS (2): torchtune's labels[1] = 52 becomes label 2 = the token 52.
  QCOMPARE(b.labels.at(1, 2), int64_t(-100));
  QCOMPARE(b.labels.at(1, 3), int64_t(52));
  QCOMPARE(b.labels.at(1, 4), int64_t(2));
}

QTEST_GUILESS_MAIN(TestFrameworkLint)
#include "tst_framework_lint.moc"
